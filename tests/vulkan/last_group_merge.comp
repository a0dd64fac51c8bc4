#version 450
// A reduction whose last workgroup merges the partial sums ("last block"
// pattern): the memory barrier sits inside a branch one invocation takes.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer State { uint done; uint total; uint partial[]; } st;
shared uint s_sum;
shared uint s_last;

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) s_sum = 0u;
    barrier();
    atomicAdd(s_sum, values[gl_GlobalInvocationID.x]);
    for (uint stride = 32u; stride > 0u; stride >>= 1) {
        barrier();
    }
    if (lid == 0u) {
        st.partial[gl_WorkGroupID.x] = s_sum;
        memoryBarrierBuffer();
        uint ticket = atomicAdd(st.done, 1u);
        s_last = ticket == gl_NumWorkGroups.x - 1u ? 1u : 0u;
    }
    barrier();
    if (s_last != 0u && lid == 0u) {
        memoryBarrierBuffer();
        uint sum = 0u;
        for (uint g = 0u; g < gl_NumWorkGroups.x; ++g) sum += atomicAdd(st.partial[g], 0u);
        st.total = sum;
    }
}
// run: --groups 16 --buffer In=u32:1024:iota --buffer st=u32:18
