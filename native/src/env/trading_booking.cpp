// Booking one step of the trading walk on compounded equity (see trading_booking.h).
#include "env/trading_booking.h"

#include <algorithm>
#include <cmath>

namespace dqn {

StepBooking BookStep(const std::vector<double>& close, int t, int until, double previous, double position, double cost,
                     int close_at, std::vector<double>* bar_returns) {
  StepBooking out;
  const double entry = 1.0 - cost * std::abs(position - previous);
  double e_prev = 1.0, e = 1.0, closed_at_equity = 0;
  bool closed = false;
  for (int b = t + 1; b <= until; ++b) {
    if (closed) {
      e = closed_at_equity;
    } else {
      e = entry + position * (close[static_cast<size_t>(b)] / close[static_cast<size_t>(t)] - 1.0);
      if (b == close_at) {
        e -= cost * std::abs(position);
        closed = true;
        closed_at_equity = e;
      }
    }
    if (e <= 0) {
      out.ruined = true;
      if (bar_returns) bar_returns->push_back(-1.0);
      out.reward = -1.0;
      out.held = 0;
      return out;
    }
    if (bar_returns) bar_returns->push_back(e / e_prev - 1.0);
    e_prev = e;
  }
  out.reward = e - 1.0;
  out.held = closed ? 0.0 : position;
  return out;
}

}  // namespace dqn
