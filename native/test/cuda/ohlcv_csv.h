// Reads an OHLCV file for the CUDA tools (env_cuda_tool's trading cases) the way the app's loader
// does (main/trainer/data/ohlcv.ts): header `timestamp,open,high,low,close,volume`, timestamps
// ISO-8601 with a zone (2024-01-01T23:01:00Z, +01:00) or a date (00:00 UTC), numbers as decimal
// text (strtod rounds correctly, as JavaScript's Number does). No row policy: a bad row is an error.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "env/make_env.h"

namespace tool {

/// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Hinnant's days_from_civil).
inline long long DaysFromCivil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

/// Unix seconds of "YYYY-MM-DD" or "YYYY-MM-DD[T ]HH:MM[:SS[.f]](Z|+HH:MM|-HHMM)".
/// @throws std::invalid_argument naming the text when it is neither.
inline double ParseTimestamp(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, n = 0;
  double sec = 0;
  const auto bad = [&s]() { return std::invalid_argument("timestamp '" + s + "' is not ISO-8601 with a zone or a date"); };
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) throw bad();
  double t = static_cast<double>(DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) * 86400.0;
  if (s.size() == 10) return t;
  size_t at = 11;
  if ((s[10] != 'T' && s[10] != ' ') || std::sscanf(s.c_str() + at, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5) throw bad();
  at += 5;
  if (at < s.size() && s[at] == ':') {
    char* end = nullptr;
    sec = std::strtod(s.c_str() + at + 1, &end);
    at = static_cast<size_t>(end - s.c_str());
  }
  t += h * 3600.0 + mi * 60.0 + sec;
  if (at < s.size() && s[at] == 'Z' && at + 1 == s.size()) return t;
  if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    std::string digits;
    for (size_t k = at + 1; k < s.size(); ++k)
      if (s[k] != ':') digits += s[k];
    if (digits.size() != 4) throw bad();
    const double offset = std::stoi(digits.substr(0, 2)) * 3600.0 + std::stoi(digits.substr(2)) * 60.0;
    return s[at] == '-' ? t + offset : t - offset;
  }
  throw bad();
}

/// The bars of an OHLCV file. @throws std::runtime_error when it cannot be read, std::invalid_argument for a bad row.
inline std::shared_ptr<dqn::MarketData> LoadOhlcv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the OHLCV file " + path + " (set DQN_TRADING_CSV or pass its path)");
  auto m = std::make_shared<dqn::MarketData>();
  std::string line;
  std::getline(in, line);
  if (line.rfind("timestamp,open,high,low,close,volume", 0) != 0) throw std::invalid_argument(path + ": not an OHLCV header: " + line);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::stringstream row(line);
    std::string field[6];
    for (auto& f : field)
      if (!std::getline(row, f, ',')) throw std::invalid_argument(path + ": short row: " + line);
    m->timestamps.push_back(ParseTimestamp(field[0]));
    std::vector<double>* cols[5] = {&m->open, &m->high, &m->low, &m->close, &m->volume};
    for (int k = 0; k < 5; ++k) cols[k]->push_back(std::strtod(field[k + 1].c_str(), nullptr));
  }
  return m;
}

/// The CSV the CUDA tools' trading cases read: `arg` when set, $DQN_TRADING_CSV, the bundled file
/// from the working directory, or from the repository root two levels above the tool
/// (build/<dir>/<tool>).
inline std::string TradingCsvPath(const char* arg) {
  if (arg) return arg;
  if (const char* e = std::getenv("DQN_TRADING_CSV"); e && *e) return e;
  const std::string rel = "resources/data/6EH4_cme_1m_2024-01.csv";
  if (std::ifstream(rel)) return rel;
  char exe[4096];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    std::string root(exe, static_cast<size_t>(len));
    for (int up = 0; up < 3 && root.rfind('/') != std::string::npos; ++up) root.resize(root.rfind('/'));
    if (std::ifstream(root + "/" + rel)) return root + "/" + rel;
  }
  return rel;
}

/// The bars of TradingCsvPath(arg), read once per process (the first call's arg wins) and named on stdout.
inline std::shared_ptr<const dqn::MarketData> TradingBars(const char* arg) {
  static const std::shared_ptr<const dqn::MarketData> bars = [arg] {
    const std::string path = TradingCsvPath(arg);
    auto m = LoadOhlcv(path);
    std::printf("trading bars: %zu from %s\n", m->close.size(), path.c_str());
    return m;
  }();
  return bars;
}

}  // namespace tool
