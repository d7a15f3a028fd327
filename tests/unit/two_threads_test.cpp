#include "flamefold/two_threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using flamefold::on_two_threads;
using flamefold::sort_on_two_threads;

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

// Halves sorted on two threads and merged: std::sort's answer, big or small, in place.
TEST(TwoThreads, SortOnTwoThreadsGivesStdSortsOrder) {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(16384), size_t(100001)}) {
    std::vector<std::pair<uint32_t, uint32_t>> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = {static_cast<uint32_t>(rng() % 5000), static_cast<uint32_t>(i)};
    std::vector<std::pair<uint32_t, uint32_t>> want = v, plain = v;
    std::sort(want.begin(), want.end());
    sort_on_two_threads(v.begin(), v.end(), std::less<>(), true);
    sort_on_two_threads(plain.begin(), plain.end(), std::less<>(), false);
    EXPECT_EQ(v, want) << n;
    EXPECT_EQ(plain, want) << n;
  }
}

// in_two_stages: a pipeline of two stages over blocks, the first on a second thread.
TEST(InTwoStages, EachBlocksSecondStageFollowsItsFirstAndTheFirstKeepsWithinReach) {
  constexpr size_t kBlocks = 200, kAhead = 3;
  std::atomic<size_t> firsts{0}, seconds{0};
  std::vector<int> made(kBlocks, 0);
  std::atomic<bool> out_of_reach{false}, before_first{false};
  std::thread::id first_thread;
  flamefold::in_two_stages(
      kBlocks, kAhead, true,
      [&](size_t b) {
        first_thread = std::this_thread::get_id();
        if (b >= seconds.load() + kAhead) out_of_reach = true;
        made[b] = static_cast<int>(b) + 1;
        firsts = b + 1;
      },
      [&](size_t b) {
        if (firsts.load() <= b || made[b] != static_cast<int>(b) + 1) before_first = true;
        seconds = b + 1;
      });
  EXPECT_EQ(seconds.load(), kBlocks);
  EXPECT_FALSE(out_of_reach);
  EXPECT_FALSE(before_first);
  EXPECT_NE(first_thread, std::this_thread::get_id());
}

TEST(InTwoStages, WhatEitherStageThrowsIsRethrownAndBothStop) {
  size_t seconds = 0;
  EXPECT_THROW(flamefold::in_two_stages(
                   100, 2, true,
                   [&](size_t b) {
                     if (b == 10) throw std::runtime_error("first");
                   },
                   [&](size_t) { ++seconds; }),
               std::runtime_error);
  // The first stage is at most two blocks ahead: the second had done 0-7 at least, and none past 9.
  EXPECT_GE(seconds, 8u);
  EXPECT_LE(seconds, 10u);
  std::atomic<size_t> firsts{0};
  // The second stage failing once used to leave the first stage's thread joinable (terminate).
  EXPECT_THROW(flamefold::in_two_stages(
                   100, 2, true, [&](size_t) { ++firsts; },
                   [&](size_t b) {
                     if (b == 5) throw std::logic_error("second");
                   }),
               std::logic_error);
  EXPECT_LE(firsts.load(), 5u + 2u + 1u);  // stopped within reach of the failure
}
