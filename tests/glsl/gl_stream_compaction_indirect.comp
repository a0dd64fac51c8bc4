#version 430
// Stream compaction with an atomic counter; the last word of a second
// counter binding counts the workgroups that finished, and the last
// workgroup writes the dispatch-indirect arguments.
layout(local_size_x = 64) in;

uniform uint u_n;
uniform uint u_threshold;

layout(std430, binding = 0) readonly buffer Input { uint values[]; };
layout(std430, binding = 1) writeonly buffer Output { uint kept[]; };
layout(std430, binding = 2) buffer Indirect { uint groupsX, groupsY, groupsZ; };
layout(binding = 0, offset = 0) uniform atomic_uint keptCount;
layout(binding = 1, offset = 0) uniform atomic_uint groupsDone;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < u_n && values[i] >= u_threshold) {
        kept[atomicCounterIncrement(keptCount)] = values[i];
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint done = atomicCounterIncrement(groupsDone);
        if (done == gl_NumWorkGroups.x - 1u) {
            groupsX = (atomicCounter(keptCount) + 63u) / 64u;
            groupsY = 1u;
            groupsZ = 1u;
        }
    }
}
