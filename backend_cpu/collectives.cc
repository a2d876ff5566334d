#include "backend_cpu/collectives.h"

namespace hlo::cpu {

CollectiveHub::CollectiveHub(int64_t replica_count, int64_t partition_count)
    : replica_count_(replica_count), partition_count_(partition_count) {}
CollectiveHub::~CollectiveHub() = default;

ChannelHub::ChannelHub(std::vector<Literal> infeed) : infeed_(std::move(infeed)) {}
ChannelHub::~ChannelHub() = default;
std::vector<Literal> ChannelHub::TakeOutfeed() { return std::move(outfeed_); }

}  // namespace hlo::cpu
