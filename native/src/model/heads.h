// The run's list of heads, made from its config in one place (DESIGN section 4, "Heads"; issue
// 23): the parameter layout, the CPU step's loss parts and the checkpoint's heads description
// all start here. Adding a head adds one line to MakeHeads (model/heads.cpp).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/head.h"
#include "model/param_layout.h"

namespace dqn {

/// The heads of `net` on its trunk (feature width net.hidden.back()), main head first (Q, C51
/// or IQN), then the auxiliary heads (an auxiliary IQN head, then the ensemble).
/// @throws std::invalid_argument naming the config field to change when the combination is
///         refused (CQL with an IQN main head; an auxiliary IQN head beside an IQN main head;
///         budget shares outside [0, 1) or summing to 1 or more; C51's support; the ensemble's
///         heads or bootstrap_p).
std::vector<std::shared_ptr<const Head>> MakeHeads(const NetConfig& net);

/// The heads config fields the run's layout and step depend on, as checkpoints record them:
/// each head's own fields (Head::fields) in head order, then CQL's (heads.cql.alpha and share,
/// when on) and spectral normalisation's (heads.spectral.*, when on). Fields of parts that are
/// off are left out, so a plain Q run is described by {heads.main = q} alone.
std::vector<ConfigField> DescribeHeads(const NetConfig& net);

/// A number as a ConfigField value: the shortest text that reads back to the same double.
std::string FieldText(double x);

}  // namespace dqn
