#version 450
// atomicAdd (uint) on a scalar member of a named buffer block, Vulkan set/binding layout.
layout(local_size_x = 64) in;

layout(set = 1, binding = 2) buffer Counters {
    uint visits;
    uint odd_visits;
} counters;

void main() {
    atomicAdd(counters.visits, 1u);
    if ((gl_GlobalInvocationID.x & 1u) == 1u) {
        atomicAdd(counters.odd_visits, 1u);
    }
}
// run: --groups 4 --buffer Counters=u32:[10,20]
