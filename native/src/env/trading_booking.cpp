// Booking one step of the trading walk on compounded equity (see trading_booking.h).
#include "env/trading_booking.h"

#include <algorithm>
#include <cmath>

#include "env/trading_features.h"

namespace dqn {

StepBooking BookStep(const std::vector<double>& timestamps, const std::vector<double>& close, const StepOrder& o,
                     std::vector<double>* bar_returns) {
  StepBooking out;
  const double p = o.target;
  const double traded = std::abs(p - o.held);
  const double entry = 1.0 - o.cost * traded;
  const double financed = std::max(p - 1.0, 0.0) + std::max(-p, 0.0);
  const double c0 = close[static_cast<size_t>(o.t)], ts0 = timestamps[static_cast<size_t>(o.t)];
  out.turnover = traded;
  out.costs = o.cost * traded;
  double e_prev = 1.0, e = 1.0;
  bool sold = false;
  for (int b = o.t + 1; b <= o.until; ++b) {
    if (!sold) {
      const double ratio = close[static_cast<size_t>(b)] / c0;
      out.financing = o.financing * financed * (timestamps[static_cast<size_t>(b)] - ts0) / kSecondsPerYear;
      e = entry + p * (ratio - 1.0) - out.financing;
      if (b == o.close_at) {
        const double value = std::abs(p) * ratio;  // value sold, in units of E_t
        if (e > 0) out.turnover += value / e;
        out.costs += o.cost * value;
        e -= o.cost * value;
        sold = true;
      }
    }
    if (e <= 0) {
      out.ruined = true;
      if (bar_returns) bar_returns->push_back(-1.0);
      out.reward = -1.0;
      out.weight = 0;
      return out;
    }
    if (bar_returns) bar_returns->push_back(e / e_prev - 1.0);
    e_prev = e;
  }
  out.reward = e - 1.0;
  out.weight = sold ? 0.0 : p * (close[static_cast<size_t>(o.until)] / c0) / e;
  return out;
}

}  // namespace dqn
