// Where the replicas/partitions of one run meet: collectives (all-reduce,
// all-gather, all-to-all, reduce-scatter, collective-permute, ...) and the
// in-process channels of send/recv and infeed/outfeed. One hub per run,
// shared by the device threads; every call blocks until its peers arrive.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ir/literal.h"

namespace hlo::cpu {

class CollectiveHub {
 public:
  CollectiveHub(int64_t replica_count, int64_t partition_count);
  ~CollectiveHub();
  int64_t replica_count() const { return replica_count_; }
  int64_t partition_count() const { return partition_count_; }
  int64_t device_count() const { return replica_count_ * partition_count_; }

 private:
  int64_t replica_count_;
  int64_t partition_count_;
};

class ChannelHub {
 public:
  explicit ChannelHub(std::vector<Literal> infeed);
  ~ChannelHub();
  // Everything outfeed sent, in order.
  std::vector<Literal> TakeOutfeed();

 private:
  std::vector<Literal> infeed_;
  std::vector<Literal> outfeed_;
};

}  // namespace hlo::cpu
