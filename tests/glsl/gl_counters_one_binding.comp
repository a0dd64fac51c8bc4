#version 430
// Several counters share atomic-counter binding 0: explicit offsets, and
// implicit ones that advance by 4 from the last.
layout(local_size_x = 32) in;

layout(binding = 0, offset = 0) uniform atomic_uint allocated;
layout(binding = 0) uniform atomic_uint released;          // offset 4
layout(binding = 0, offset = 12) uniform atomic_uint peak; // skips 8
layout(binding = 0) uniform atomic_uint probes;            // offset 16

layout(std430, binding = 0) buffer Log { uint before[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint a = atomicCounterIncrement(allocated);
    if ((i & 1u) == 0u) {
        atomicCounterDecrement(released);
    }
    atomicCounterIncrement(probes);
    before[i] = a + atomicCounter(peak);
}
// run: --groups 4 --buffer Log=u32:128:fill=5
// run: --counter allocated=10 --counter released=500 --counter peak=1000 --counter probes=3
// compare: Log=multiset: each invocation logs the value atomicCounterIncrement(allocated) returned it, handed out in whatever order the invocations ran
