#version 450
// atomicCompSwap (uint) and atomicAnd/atomicXor on a `shared` array: first-claimant wins per slot.
layout(local_size_x = 32) in;

layout(set = 0, binding = 0) buffer Out {
    uint winner[32];
    uint losses;
} o;

shared uint s_owner[32];
shared uint s_bits[4];

void main() {
    uint lid = gl_LocalInvocationIndex;
    s_owner[lid] = 0xFFFFFFFFu;
    if (lid < 4u) {
        s_bits[lid] = 0xFFFFFFFFu;
    }
    barrier();
    uint slot = (lid * 7u) % 32u;
    uint prev = atomicCompSwap(s_owner[slot], 0xFFFFFFFFu, lid);
    if (prev != 0xFFFFFFFFu) {
        atomicAdd(o.losses, 1u);
    }
    atomicAnd(s_bits[lid % 4u], ~(1u << lid));
    atomicXor(s_bits[(lid + 1u) % 4u], 1u);
    barrier();
    o.winner[lid] = s_owner[lid] ^ s_bits[lid % 4u];
}
// run: --groups 4 --buffer o=u32:33:fill=9
