#version 450
// A switch whose cases fall through into the next, in the style of
// texture-swizzle and tile-mode decoders: each mode does its own step and
// then the steps of the modes below it. WGSL's switch has no fall-through,
// so each falling case carries a copy of the code it falls into. The chain
// runs three cases deep, `default` falls into a case, and one case leaves
// the loop around the switch early.
// run: --groups 2 --buffer Modes=u32:128:iota --buffer Tally=u32:9
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Modes { uint modes[]; };
layout(set = 0, binding = 1) buffer Tally { uint tally[9]; };

uint decode(uint mode, uint v) {
    switch (mode % 7u) {
    case 0u:
        v += 3u;
    case 1u:
        v *= 5u;
        atomicAdd(tally[1], 1u);
    case 2u:
        v ^= 0x55u;
        break;
    case 3u:
        atomicOr(tally[2], 1u << (v & 31u));
        return v + 1u;
    default:
        v = (v << 2) | 1u;
    case 6u:
        v = ~v;
        atomicAdd(tally[3], 1u);
        break;
    }
    return v;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = modes[i];
    for (uint step = 0u; step < 3u; step++) {
        switch ((v + step) & 3u) {
        case 0u:
            atomicMax(tally[4], v & 0xffffu);
        case 1u:
            atomicMin(tally[5], v | 0x100u);
            if (v > 1000u) {
                break;
            }
            v = decode(v + step, v);
        case 2u:
            atomicXor(tally[6], v);
            continue;
        default:
            atomicAdd(tally[7], 1u);
        }
        atomicAdd(tally[8], step);
    }
    modes[i] = v;
    atomicAdd(tally[0], v & 0xffu);
}
