#version 450
// int atomics on `shared` int scalars (atomicMin/atomicMax/atomicExchange) reduced into a global int pair.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Input {
    int data[];
};

layout(set = 0, binding = 1) buffer Result {
    int group_min;
    int group_max;
    int last_writer;
};

shared int s_min;
shared int s_max;
shared int s_last;

void main() {
    if (gl_LocalInvocationIndex == 0u) {
        s_min = 2147483647;
        s_max = -2147483647 - 1;
        s_last = -1;
    }
    memoryBarrierShared();
    barrier();
    int v = data[gl_GlobalInvocationID.x];
    atomicMin(s_min, v);
    atomicMax(s_max, v);
    atomicExchange(s_last, int(gl_LocalInvocationIndex));
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        atomicMin(group_min, s_min);
        atomicMax(group_max, s_max);
        atomicExchange(last_writer, s_last);
    }
}
