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
    info.mine[i] = (subgroupInverseBallot(b) ? 1u : 0u) + (subgroupBallotBitExtract(b, src) ? 2u : 0u) + 4u * subgroupBroadcast(v, gl_SubgroupSize / 2u);
}
// run: --target-env vulkan1.2 --groups 2 --buffer o=u32:130 --buffer info=u32:1280
// run: --buffer In=u32:[2148019355,2148019355,2148235551,2148235551,2147544476,2147544476,2148460129,2148460129,522301,522301,108745,108745,328941,328941,237411,237411,779706,779706,983708,983708,517100,517100,798506,798506,2147697503,2147697503,2148006532,2148006532,2147511150,2147511150,2147938163,2147938163,855954,855954,586117,586117,381840,381840,816709,816709,334714,334714,150851,150851,291016,291016,932888,932888,2147749355,2147749355,2147760977,2147760977,2147487371,2147487371,2147494791,2147494791,439261,439261,451896,451896,347826,347826,349143,349143,606716,606716,657774,657774,417101,417101,429453,429453,2147864634,2147864634,2147896532,2147896532,2148287324,2148287324,2148110252,2148110252,45236,45236,757470,757470,870122,870122,348035,348035,305559,305559,553253,553253,136607,136607,695949,695949,2148115643,2148115643,2147490742,2147490742,2148192269,2148192269,2147622107,2147622107,650028,650028,745225,745225,641863,641863,1008195,1008195,662266,662266,387497,387497,1009188,1009188,990984,990984,2147852998,2147852998,2147603187,2147603187,2148020900,2148020900,2147531600,2147531600]
// compare: o=multiset: each subgroup's elected lane reserves its block with atomicAdd, so the blocks of kept values land in the order the subgroups ran
