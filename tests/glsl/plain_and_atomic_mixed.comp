#version 450
// Plain (non-atomic) reads and writes of buffer and shared memory that is also accessed atomically.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer State {
    uint counter;
    uint generation;
    uint slots[64];
    int balance[];
} st;

shared uint s_total;
shared uint s_slots[64];

void main() {
    uint lid = gl_LocalInvocationIndex;
    // Plain initialisation of memory used atomically below.
    s_slots[lid] = lid;
    if (lid == 0u) {
        s_total = 0u;
        st.generation = st.generation + 1u;
    }
    barrier();

    atomicAdd(s_total, s_slots[lid]);
    // Every slot is read before any is flipped: the total does not depend
    // on the order invocations ran in.
    barrier();
    atomicXor(s_slots[(lid + 1u) % 64u], 0x5u);
    uint before = atomicAdd(st.counter, 1u);
    atomicAdd(st.balance[lid], int(before & 1u) * 2 - 1);
    barrier();

    // Plain reads after the barrier, and a plain write into an atomically-updated array.
    uint mine = s_slots[lid];
    st.slots[lid] = mine + s_total;
    if (lid == 0u) {
        uint c = st.counter;
        st.balance[64] = int(c);
        atomicMax(st.slots[0], c);
    }
}
// run: --groups 1 --buffer st=u32:131:fill=3
// compare: st=multiset: balance[lid] gets +1 or -1 by the parity of the atomicAdd value invocation lid got, which depends on the order invocations ran in; the counts of each are fixed
