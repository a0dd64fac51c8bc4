#version 450
// A tiled scan with its sizes as specialization constants, the way
// engines pick tile sizes at pipeline creation.
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const uint TILE = 8;
layout(constant_id = 2) const int BIAS = -3;
layout(constant_id = 3) const bool WIDE = false;
layout(constant_id = 4) const uint SHIFT = 2;

const uint MASK = TILE - 1u;
const uint HALF = TILE >> 1;
const uint SPREAD = (TILE << SHIFT) | 1u;
const uint PICK = WIDE ? TILE * 2u : TILE / 2u;
const bool SMALL = TILE < 16u && !WIDE;
const int SIGNED = BIAS * int(TILE) - (BIAS % 2);
const uint FLIP = ~TILE & 0xffu;
const uvec3 SHAPE = uvec3(TILE, HALF, MASK);
const uvec2 SWAP = SHAPE.zx;
const uint PICKED = SHAPE.y + SWAP.x;
const uint MOD = TILE % 3u;
const int NEG = -BIAS;
const uint XOR = TILE ^ SHIFT;
const bool SAME = TILE == SHIFT;
const uint AS_UINT = uint(BIAS);

layout(set = 0, binding = 0) buffer Out { uint words[]; };

void main() {
    if (gl_GlobalInvocationID.x != 0u) return;
    words[0] = MASK;
    words[1] = HALF;
    words[2] = SPREAD;
    words[3] = PICK;
    words[4] = SMALL ? 1u : 0u;
    words[5] = uint(SIGNED);
    words[6] = FLIP;
    words[7] = PICKED;
    words[8] = MOD;
    words[9] = uint(NEG);
    words[10] = XOR;
    words[11] = SAME ? 1u : 0u;
    words[12] = AS_UINT;
    words[13] = gl_WorkGroupSize.x;
    atomicAdd(words[14], SWAP.y);
}
// run: --groups 4 --buffer Out=u32:16:fill=7
// run: --spec 0=32 --spec TILE=16 --spec BIAS=-7 --spec WIDE=true --spec SHIFT=16
