#version 450
// The last workgroup to finish carries on, as single-pass downsamplers
// decide it: one invocation counts its workgroup in, a helper returns the
// count from shared memory, and the workgroups that are not last return
// before the barriers that follow. The count is read in uniform control
// flow (a workgroupUniformLoad), so the helper's result, and the return
// on it, are uniform.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counter { uint finished; };
layout(set = 0, binding = 1) buffer Data { uint values[]; };
shared uint s_counter;
shared uint tile[64];

uint counted() {
    return s_counter;
}

bool notLast() {
    if (gl_LocalInvocationIndex == 0u) {
        s_counter = atomicAdd(finished, 1u);
    }
    barrier();
    return counted() != gl_NumWorkGroups.x - 1u;
}

void main() {
    uint i = gl_LocalInvocationIndex;
    values[gl_GlobalInvocationID.x] += 1u;
    memoryBarrierBuffer();
    barrier();
    if (notLast()) {
        return;
    }
    uint sum = 0u;
    for (uint g = 0u; g < gl_NumWorkGroups.x; ++g) {
        sum += values[g * 64u + i];
    }
    tile[i] = sum;
    barrier();
    if (i == 0u) {
        uint total = 0u;
        for (uint k = 0u; k < 64u; ++k) {
            total += tile[k];
        }
        finished = total;
    }
}
