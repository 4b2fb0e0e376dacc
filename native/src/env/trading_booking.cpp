// Booking one step of the trading walk on compounded equity (see trading_booking.h): the shared
// rule trading::BookBars (env/trading_step.h), with the bar returns kept when asked for.
#include "env/trading_booking.h"

namespace dqn {

StepBooking BookStep(const std::vector<double>& timestamps, const std::vector<double>& close, const StepOrder& o,
                     std::vector<double>* bar_returns) {
  if (!bar_returns) return trading::BookBars(timestamps.data(), close.data(), o, trading::NoBars{});
  return trading::BookBars(timestamps.data(), close.data(), o, [bar_returns](double r) { bar_returns->push_back(r); });
}

}  // namespace dqn
