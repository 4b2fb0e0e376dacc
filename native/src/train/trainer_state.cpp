// The trainer's checkpoint blob (Trainer::save_state / load_state). Layout, native byte order
// (little-endian on every supported platform), version 1:
//   u32 magic "DQNT", u32 version,
//   i32 state_dim, i32 n_actions, i32 dueling, i32 n_hidden, i32 hidden[n_hidden],
//   i64 P (floats per network), f32 online[P], f32 target[P], f32 adam_m[P], f32 adam_v[P],
//   i64 step (Adam's t), u64 exploration_rng[4], i64 env_steps, i64 episodes,
//   i64 replay_sample_steps, f64 beta of the last batch, f64 last episodic_return,
//   f64 last episode_length.
#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "train/trainer.h"

namespace dqn {
namespace {

constexpr uint32_t kMagic = 0x544E5144;  // "DQNT"
constexpr uint32_t kVersion = 1;

class Writer {
 public:
  template <typename T> void put(const T& v) { bytes(&v, sizeof(T)); }
  template <typename T> void put(std::span<T> v) { bytes(v.data(), v.size() * sizeof(T)); }
  std::vector<uint8_t> out;

 private:
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
};

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <typename T> T get() {
    T v;
    bytes(&v, sizeof(T));
    return v;
  }
  template <typename T> void get(std::vector<T>& v) { bytes(v.data(), v.size() * sizeof(T)); }
  void finish() const {
    if (pos_ != size_)
      throw std::invalid_argument("trainer state has " + std::to_string(size_ - pos_) + " trailing bytes");
  }

 private:
  void bytes(void* p, size_t n) {
    if (size_ - pos_ < n)
      throw std::invalid_argument("trainer state is truncated (" + std::to_string(size_) + " bytes)");
    std::memcpy(p, data_ + pos_, n);
    pos_ += n;
  }
  const uint8_t* data_;
  size_t size_, pos_ = 0;
};

std::string Describe(int d, const std::vector<int>& hidden, int a, bool dueling) {
  std::string s = std::to_string(d) + " -> [";
  for (size_t i = 0; i < hidden.size(); ++i) s += (i ? ", " : "") + std::to_string(hidden[i]);
  return s + "] -> " + std::to_string(a) + (dueling ? " (dueling)" : " (plain)");
}

}  // namespace

std::vector<uint8_t> Trainer::save_state() {
  const NetConfig& net = learner_->layout().config();
  Writer w;
  w.put(kMagic);
  w.put(kVersion);
  w.put<int32_t>(net.state_dim);
  w.put<int32_t>(net.n_actions);
  w.put<int32_t>(net.dueling ? 1 : 0);
  w.put<int32_t>(static_cast<int32_t>(net.hidden.size()));
  for (int h : net.hidden) w.put<int32_t>(h);
  w.put<int64_t>(learner_->layout().size());
  LearnerTensors params;
  learner_->save_params(params);
  w.put(std::span<const float>(params.online));
  w.put(std::span<const float>(params.target));
  w.put(std::span<const float>(params.adam_m));
  w.put(std::span<const float>(params.adam_v));
  w.put<int64_t>(learner_->steps());
  for (uint64_t x : explore_rng_.state()) w.put(x);
  w.put<int64_t>(scalars_->env_steps);
  w.put<int64_t>(scalars_->episodes);
  w.put<int64_t>(replay_->sample_steps());
  w.put<double>(scalars_->beta);
  w.put<double>(scalars_->episodic_return);
  w.put<double>(scalars_->episode_length);
  return std::move(w.out);
}

void Trainer::load_state(const uint8_t* data, size_t size) {
  Reader r(data, size);
  if (r.get<uint32_t>() != kMagic) throw std::invalid_argument("not a trainer state (bad magic number)");
  const auto version = r.get<uint32_t>();
  if (version != kVersion)
    throw std::invalid_argument("trainer state version " + std::to_string(version) + " is not supported (expected " +
                                std::to_string(kVersion) + ")");
  const NetConfig& net = learner_->layout().config();
  const int d = r.get<int32_t>(), a = r.get<int32_t>();
  const bool dueling = r.get<int32_t>() != 0;
  const int n_hidden = r.get<int32_t>();
  if (n_hidden < 0 || n_hidden > 64) throw std::invalid_argument("trainer state has a corrupt layer count");
  std::vector<int> hidden(static_cast<size_t>(n_hidden));
  for (int& h : hidden) h = r.get<int32_t>();
  if (d != net.state_dim || a != net.n_actions || dueling != net.dueling || hidden != net.hidden)
    throw std::invalid_argument("trainer state network is " + Describe(d, hidden, a, dueling) + ", this trainer's is " +
                                Describe(net.state_dim, net.hidden, net.n_actions, net.dueling));
  if (r.get<int64_t>() != learner_->layout().size())
    throw std::invalid_argument("trainer state parameter count does not match the network");
  // Read into copies first, so a truncated blob leaves the trainer unchanged.
  const auto n = static_cast<size_t>(learner_->layout().size());
  LearnerTensors params{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n), std::vector<float>(n), {}};
  r.get(params.online);
  r.get(params.target);
  r.get(params.adam_m);
  r.get(params.adam_v);
  const auto step = r.get<int64_t>();
  std::array<uint64_t, 4> rng{};
  for (uint64_t& x : rng) x = r.get<uint64_t>();
  const auto env_steps = r.get<int64_t>(), episodes = r.get<int64_t>(), sample_steps = r.get<int64_t>();
  const auto beta = r.get<double>(), ep_return = r.get<double>(), ep_length = r.get<double>();
  r.finish();

  learner_->load_params(params);
  learner_->set_steps(step);
  explore_rng_.set_state(rng);
  replay_->set_sample_steps(sample_steps);
  scalars_->step = step;
  scalars_->env_steps = env_steps;
  scalars_->episodes = episodes;
  scalars_->episodic_return = ep_return;
  scalars_->episode_length = ep_length;
  scalars_->epsilon = env_steps < config_.learning_starts ? 1.0 : epsilon();
  scalars_->beta = beta;
  // Restored weights are healthy again: a NaN halt is lifted.
  scalars_->nan_flags = 0;
  halted_.clear();
  refill_ = std::min(config_.learning_starts, replay_->capacity());
}

}  // namespace dqn
