// The trainer's checkpoint blob (Trainer::save_state / load_state). Layout, native byte order
// (little-endian on every supported platform), version 2:
//   u32 magic "DQNT", u32 version,
//   i32 state_dim, i32 n_actions, i32 dueling, i32 n_hidden, i32 hidden[n_hidden],
//   u32 F, then F heads fields (DescribeHeads, model/heads.h): u32 length, name bytes, u32
//     length, value bytes (each field's path in the run config and its value as text),
//   i64 P (floats per network), f32 online[P], f32 target[P], f32 adam_m[P], f32 adam_v[P],
//   i64 U, f32 spectral_u[U] (spectral normalisation's power-iteration vectors; 0 without it),
//   i64 step (Adam's t), u64 exploration_rng[4], i64 env_steps, i64 episodes,
//   i64 replay_sample_steps, f64 beta of the last batch, f64 last episodic_return,
//   f64 last episode_length.
// Version 1 (before heads) has neither the heads fields nor U and spectral_u: it loads as the
// plain Q head, {heads.main = q}.
#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "model/heads.h"
#include "train/trainer.h"

namespace dqn {
namespace {

constexpr uint32_t kMagic = 0x544E5144;  // "DQNT"
constexpr uint32_t kVersion = 2;
constexpr uint32_t kMaxHeadsFields = 256, kMaxFieldBytes = 256;  // corrupt-blob guards

class Writer {
 public:
  template <typename T> void put(const T& v) { bytes(&v, sizeof(T)); }
  template <typename T> void put(std::span<T> v) { bytes(v.data(), v.size() * sizeof(T)); }
  void put(const std::string& text) {
    put<uint32_t>(static_cast<uint32_t>(text.size()));
    bytes(text.data(), text.size());
  }
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
  std::string text() {
    const auto n = get<uint32_t>();
    if (n > kMaxFieldBytes) throw std::invalid_argument("trainer state has a corrupt heads description");
    std::string t(n, '\0');
    bytes(t.data(), n);
    return t;
  }
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

/// The value of field `name` in `fields`, or null.
const std::string* Find(const std::vector<ConfigField>& fields, const std::string& name) {
  for (const ConfigField& f : fields)
    if (f.name == name) return &f.value;
  return nullptr;
}

/// "" when the two heads descriptions agree field by field (in any order), else each difference:
/// "heads.main is q in the checkpoint, c51 in this run; heads.c51.atoms is not set in the
/// checkpoint, 51 in this run".
std::string HeadsDifference(const std::vector<ConfigField>& saved, const std::vector<ConfigField>& run) {
  std::string out;
  const auto differ = [&](const std::string& name) {
    const std::string *a = Find(saved, name), *b = Find(run, name);
    if (a && b && *a == *b) return;
    out += (out.empty() ? "" : "; ") + name + " is " + (a ? *a : "not set") + " in the checkpoint, " + (b ? *b : "not set") +
           " in this run";
  };
  for (const ConfigField& f : saved) differ(f.name);
  for (const ConfigField& f : run)
    if (!Find(saved, f.name)) differ(f.name);
  return out;
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
  const std::vector<ConfigField> heads = DescribeHeads(net);
  w.put<uint32_t>(static_cast<uint32_t>(heads.size()));
  for (const ConfigField& f : heads) {
    w.put(f.name);
    w.put(f.value);
  }
  w.put<int64_t>(learner_->layout().size());
  LearnerTensors params;
  learner_->save_params(params);
  w.put(std::span<const float>(params.online));
  w.put(std::span<const float>(params.target));
  w.put(std::span<const float>(params.adam_m));
  w.put(std::span<const float>(params.adam_v));
  w.put<int64_t>(static_cast<int64_t>(params.spectral_u.size()));
  w.put(std::span<const float>(params.spectral_u));
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
  if (version != 1 && version != kVersion)
    throw std::invalid_argument("trainer state version " + std::to_string(version) + " is not supported (expected 1 or " +
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
  // Version 1 knew only the plain Q head.
  std::vector<ConfigField> heads = DescribeHeads(NetConfig{d, a, hidden, dueling, HeadsConfig{}});
  if (version >= 2) {
    const auto fields = r.get<uint32_t>();
    if (fields > kMaxHeadsFields) throw std::invalid_argument("trainer state has a corrupt heads description");
    heads.clear();
    for (uint32_t i = 0; i < fields; ++i) {
      std::string name = r.text();
      heads.push_back({std::move(name), r.text()});
    }
  }
  if (const std::string diff = HeadsDifference(heads, DescribeHeads(net)); !diff.empty())
    throw std::invalid_argument("trainer state heads differ from this trainer's: " + diff);
  const int64_t p = r.get<int64_t>();
  if (p != learner_->layout().size())
    throw std::invalid_argument("trainer state parameter count does not match the network");
  // Read into copies first, so a truncated blob leaves the trainer unchanged.
  const auto n = static_cast<size_t>(learner_->layout().size());
  LearnerTensors params{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n), std::vector<float>(n), {}};
  r.get(params.online);
  r.get(params.target);
  r.get(params.adam_m);
  r.get(params.adam_v);
  if (version >= 2) {
    const auto u = r.get<int64_t>();
    if (u < 0 || u > p) throw std::invalid_argument("trainer state has a corrupt spectral normalisation state");
    params.spectral_u.resize(static_cast<size_t>(u));
    r.get(params.spectral_u);
  }
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
