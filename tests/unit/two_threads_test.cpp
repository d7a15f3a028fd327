#include "flamefold/two_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

using flamefold::on_two_threads;

TEST(TwoThreads, BothRunOnTwoThreadsAndAreDoneOnReturn) {
  std::thread::id here, there;
  int a = 0, b = 0;
  on_two_threads([&] { here = std::this_thread::get_id(); a = 1; }, [&] { there = std::this_thread::get_id(); b = 2; });
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(here, std::this_thread::get_id());
  EXPECT_NE(there, here);
}

TEST(TwoThreads, WhatTheSecondThreadThrowsIsRethrownHereAfterThisThreadsWork) {
  bool here_done = false;
  EXPECT_THROW(on_two_threads([&] { here_done = true; }, [] { throw std::runtime_error("there"); }), std::runtime_error);
  EXPECT_TRUE(here_done);
}

TEST(TwoThreads, WhatThisThreadThrowsComesFirstAndTheSecondThreadIsJoined) {
  std::atomic<bool> there_done{false};
  try {
    on_two_threads([] { throw std::logic_error("here"); },
                   [&] {
                     std::this_thread::sleep_for(std::chrono::milliseconds(20));
                     there_done = true;
                     throw std::runtime_error("there");
                   });
    FAIL() << "nothing thrown";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "here");
  }
  EXPECT_TRUE(there_done);  // joined before the exception left
}
