#version 450
// Stream compaction with one atomic per subgroup: ballot the survivors,
// let the elected lane reserve space, and place each by its exclusive count.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint count; uint size; uint kept[]; } o;
layout(set = 0, binding = 2) buffer Info { uint lane[128]; uint lsb[128]; uint msb[128]; uint inc[128]; uint elect[128]; uint same[128]; uint sum[128]; uint mine[128]; uint m1[128]; uint m2[128]; } info;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = values[i];
    bool keep = (v & 1u) == 1u;
    uvec4 b = subgroupBallot(keep);
    uint total = subgroupBallotBitCount(b);
    uint before = subgroupBallotExclusiveBitCount(b);
    uint base = 0u;
    if (subgroupElect()) base = atomicAdd(o.count, total);
    uint leader = subgroupBroadcastFirst(gl_SubgroupInvocationID);
    base = subgroupShuffle(base, leader);
    if (keep) o.kept[base + before] = v;
    if (i == 0u) o.size = gl_SubgroupSize;
    info.lane[i] = gl_SubgroupInvocationID;
    info.lsb[i] = subgroupBallotFindLSB(b);
    info.msb[i] = subgroupBallotFindMSB(b);
    info.inc[i] = subgroupBallotInclusiveBitCount(b);
    info.elect[i] = subgroupElect() ? 1u : 0u;
    info.same[i] = subgroupAllEqual(v >> 31) ? 1u : 0u;
    info.sum[i] = subgroupAdd(v);
    uvec4 lt = b & gl_SubgroupLtMask;
    uvec4 eq = gl_SubgroupEqMask;
    uint eqBit = eq[gl_SubgroupInvocationID / 32u] >> (gl_SubgroupInvocationID % 32u);
    uvec4 ge = gl_SubgroupGeMask, gt = gl_SubgroupGtMask, le = gl_SubgroupLeMask;
    uint count_lt = bitCount(lt.x) + bitCount(lt.y) + bitCount(lt.z) + bitCount(lt.w);
    uint count_eq = bitCount(eq.x) + bitCount(eq.y) + bitCount(eq.z) + bitCount(eq.w);
    info.m1[i] = count_lt | ((eqBit & 1u) << 8) | (count_eq << 12) | ((bitCount(ge.x) + bitCount(ge.y) + bitCount(ge.z) + bitCount(ge.w)) << 16);
    info.m2[i] = (bitCount(gt.x) + bitCount(gt.y) + bitCount(gt.z) + bitCount(gt.w)) | ((bitCount(le.x) + bitCount(le.y) + bitCount(le.z) + bitCount(le.w)) << 8);
    uint src = (gl_SubgroupInvocationID + 1u) % gl_SubgroupSize;
    info.mine[i] = (subgroupInverseBallot(b) ? 1u : 0u) + (subgroupBallotBitExtract(b, src) ? 2u : 0u) + 4u * subgroupBroadcast(v, src % 2u);
}
