// WorkAhead (include/flamefold/work_ahead.h): items in the order produced, never more than its
// capacity waiting, spent items handed back for reuse, the producer's error where the items
// stop, and a consumer that leaves early does not hang the worker.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "flamefold/work_ahead.h"

using flamefold::WorkAhead;

TEST(WorkAhead, ItemsComeInOrderAndNoMoreThanItsCapacityWait) {
  std::atomic<int> produced{0};
  std::atomic<int> most_ahead{0};
  std::atomic<int> consumed{0};
  {
    WorkAhead<std::vector<int>> q(3, [&](WorkAhead<std::vector<int>>& w) {
      std::vector<int> item;
      for (int i = 0; i < 1000; ++i) {
        if (!w.room(item)) return;
        item.assign(1, i);
        w.push(std::move(item));
        int ahead = ++produced - consumed.load();
        if (ahead > most_ahead) most_ahead = ahead;
      }
    });
    std::vector<int> item;
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(q.next(item));
      ++consumed;
      ASSERT_EQ(item, std::vector<int>{i});
    }
    EXPECT_FALSE(q.next(item));
    EXPECT_FALSE(q.next(item));  // and stays at the end
  }
  // Waiting: at most 3, plus the one the consumer has just taken.
  EXPECT_LE(most_ahead.load(), 4);
}

TEST(WorkAhead, SpentItemsGoBackToTheWorker) {
  std::atomic<int> reused{0};
  WorkAhead<std::string> q(1, [&](WorkAhead<std::string>& w) {
    std::string buf;
    for (int i = 0; i < 50; ++i) {
      if (!w.room(buf)) return;
      if (buf.capacity() >= 4096) ++reused;
      buf.assign(4096, static_cast<char>('a' + i % 26));
      w.push(std::move(buf));
    }
  });
  std::string item;
  int n = 0;
  while (q.next(item)) {
    ASSERT_EQ(item, std::string(4096, static_cast<char>('a' + n % 26)));
    ++n;
  }
  EXPECT_EQ(n, 50);
  EXPECT_GT(reused.load(), 40);  // all but the first few buffers were handed back
}

TEST(WorkAhead, TheProducersErrorComesWhereTheItemsStop) {
  WorkAhead<int> q(2, [](WorkAhead<int>& w) {
    int spare = 0;
    for (int i = 0; i < 5; ++i) {
      if (!w.room(spare)) return;
      w.push(int(i));
    }
    throw std::runtime_error("damaged at item 5");
  });
  int item = -1;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(q.next(item));
    EXPECT_EQ(item, i);
  }
  try {
    q.next(item);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "damaged at item 5");
  }
}

TEST(WorkAhead, AConsumerLeavingEarlyStopsTheWorker) {
  std::atomic<int> produced{0};
  {
    WorkAhead<int> q(2, [&](WorkAhead<int>& w) {
      int spare = 0;
      while (w.room(spare)) {  // without end: only the consumer's leaving stops it
        w.push(int(produced));
        ++produced;
      }
    });
    int item = 0;
    ASSERT_TRUE(q.next(item));
    EXPECT_EQ(item, 0);
  }  // joins: the worker saw the stop in room()
  EXPECT_LE(produced.load(), 4);
}
