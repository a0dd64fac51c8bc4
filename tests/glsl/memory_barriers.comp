#version 450
// Every barrier built-in: barrier, memoryBarrier, memoryBarrierShared, memoryBarrierBuffer, groupMemoryBarrier.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Flags {
    uint ready;
    uint payload[64];
    uint seen;
} f;

shared uint s_count;

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) {
        s_count = 0u;
    }
    memoryBarrierShared();
    barrier();

    f.payload[lid] = lid * 3u;
    memoryBarrierBuffer();
    atomicAdd(f.ready, 1u);

    atomicAdd(s_count, 1u);
    groupMemoryBarrier();
    barrier();

    memoryBarrier();
    if (lid == 0u) {
        atomicMax(f.seen, s_count);
    }
}
// run: --groups 4 --buffer f=u32:66:fill=1
