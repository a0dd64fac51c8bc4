#version 450
// The last workgroup to finish merges every partial sum in parallel: it
// learns it is last through a shared flag, then reduces with barriers
// inside the branch on that flag (dynamically uniform, as GLSL requires).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer State { uint done; uint total; uint partial[]; } st;
shared uint s_sum[64];
shared uint s_last;

void main() {
    uint lid = gl_LocalInvocationIndex;
    s_sum[lid] = values[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = 32u; stride > 0u; stride >>= 1) {
        if (lid < stride) s_sum[lid] += s_sum[lid + stride];
        barrier();
    }
    if (lid == 0u) {
        atomicExchange(st.partial[gl_WorkGroupID.x], s_sum[0]);
        s_last = atomicAdd(st.done, 1u) == gl_NumWorkGroups.x - 1u ? 1u : 0u;
    }
    barrier();
    if (s_last != 0u) {
        uint mine = 0u;
        for (uint g = lid; g < gl_NumWorkGroups.x; g += 64u) mine += atomicAdd(st.partial[g], 0u);
        s_sum[lid] = mine;
        barrier();
        for (uint stride = 32u; stride > 0u; stride >>= 1) {
            if (lid < stride) s_sum[lid] += s_sum[lid + stride];
            barrier();
        }
        if (lid == 0u) st.total = s_sum[0];
    }
}
// run: --groups 80 --buffer In=u32:5120:iota --buffer st=u32:82
