// The rank kernels behind StaticTree (how a node's keys below the probe are
// counted), exposed so that tests and benchmarks can run each one the CPU
// supports, the portable fallback included, on the same machine.
#pragma once

#include <string_view>

namespace skade::index::internal {

enum class RankKernel {
  kScalar,  // portable C++, any CPU
  kAvx2,    // 4 x 256-bit signed compares of sign-flipped keys
  kAvx512,  // 2 x 512-bit unsigned compares (AVX-512F)
};

/// "scalar", "avx2" or "avx512".
std::string_view RankKernelName(RankKernel kernel);

/// Whether this CPU (and OS) can run `kernel`.
bool RankKernelSupported(RankKernel kernel);

/// The kernel every StaticTree lookup in the process uses now: by default
/// the widest one RankKernelSupported() allows.
RankKernel ActiveRankKernel();

/// Makes every later StaticTree lookup in the process use `kernel`; false
/// (and no change) if the CPU cannot run it. Safe to call while other
/// threads look up (they see one kernel or the other, both correct).
bool SetRankKernel(RankKernel kernel);

}  // namespace skade::index::internal
