#version 450
// Specialization constants: an expression over one (OpSpecConstantOp) and local_size_x_id, folded to their defaults.
layout(local_size_x_id = 3) in;
layout(constant_id = 3) const uint WG = 64;
layout(constant_id = 1) const uint BINS = 16;
const uint TWICE = BINS * 2u;
layout(binding = 0) buffer B { uint bins[]; };
void main() { atomicAdd(bins[gl_GlobalInvocationID.x % TWICE], 1u); }
// run: --groups 3 --spec 3=64 --spec BINS=8 --buffer B=u32:16:iota
