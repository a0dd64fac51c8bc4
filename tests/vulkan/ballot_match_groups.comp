#version 450
// Invocations grouped by equal keys, as a GPU decompressor matches symbols:
// a vote merges each invocation's flag across the workgroup through shared
// memory between barriers, a broadcast does the same for the leader's key,
// and a do-while loop runs until every invocation has its group. The loop
// exits on the merged mask and the number of passes is read from a
// read-write buffer: one value across the workgroup, as GLSL requires of
// what decides a barrier, though WGSL cannot prove it.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Keys { uint passes; uint keys[]; };
layout(set = 0, binding = 1) buffer Groups { uint group_of[]; };
shared uint s_flags[32];
shared uint s_values[32];

uint vote(bool p) {
    uint lid = gl_LocalInvocationIndex;
    s_flags[lid] = p ? (1u << lid) : 0u;
    barrier();
    uint mask = 0u;
    for (uint i = 0u; i < 32u; i++) {
        mask |= s_flags[i];
    }
    barrier();
    return mask;
}

uint broadcast(uint value, uint lane) {
    s_values[gl_LocalInvocationIndex] = value;
    barrier();
    uint v = s_values[lane];
    barrier();
    return v;
}

uint match_key(uint value) {
    uint remaining = ~0u;
    uint result = 0u;
    do {
        uint first = broadcast(value, uint(findLSB(remaining)));
        uint mask = vote(value == first);
        if (value == first) {
            result = mask;
        }
        remaining &= ~mask;
    } while (remaining != 0u);
    return result;
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint at = gl_WorkGroupID.x * 32u + lid;
    uint total = gl_NumWorkGroups.x * 32u;
    for (uint p = 0u; p < passes; p++) {
        uint key = (keys[at] >> (p * 3u)) & 7u;
        group_of[p * total + at] = match_key(key);
    }
}
// run: --groups 2 --buffer Groups=u32:128
// run: --buffer Keys=u32:[2,0,243,230,218,205,192,180,167,155,142,129,117,104,91,79,66,54,41,28,16,3,247,234,221,209,196,183,171,158,146,133,120,108,95,83,70,57,45,32,19,7,250,238,225,212,200,187,174,162,149,137,124,111,99,86,74,61,48,36,23,10,254,241,229]
