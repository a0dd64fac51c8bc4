#version 450
// Bounds and sums in double by atomics (GL_EXT_shader_atomic_float and
// _float2): each a compare-exchange loop on the 64-bit word, in a buffer
// and in shared memory. The values carry bits below a float's precision;
// every partial sum is exact, so every order gives the same sums.
// run: --groups 2 --buffer Bounds=u64:8:iota
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Bounds {
    double total;
    double lowest;
    double highest;
    double last;
    double groupTotal[2];
    double groupLowest[2];
};
shared double localTotal;
shared double localLowest;

void main() {
    uint i = gl_GlobalInvocationID.x;
    double s = double(int(i % 16u) - 8) + double(i) / 1048576.0lf;
    if (gl_LocalInvocationIndex == 0u) {
        localTotal = 0.0lf;
        localLowest = 1.0e300lf;
    }
    barrier();
    atomicAdd(total, s);
    atomicMin(lowest, s);
    atomicMax(highest, s);
    if (i == 127u) {
        atomicExchange(last, s);
    }
    atomicAdd(localTotal, s);
    atomicMin(localLowest, s);
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        groupTotal[gl_WorkGroupID.x] = localTotal;
        groupLowest[gl_WorkGroupID.x] = localLowest;
    }
}
