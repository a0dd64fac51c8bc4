#version 450
#extension GL_KHR_shader_subgroup_ballot : require
// Stream compaction by ballot, as decompressors and culling kernels rank
// their lanes: a lane's slot is the number of voting lanes below it, the
// ballot's words before its own plus its own word masked by
// gl_SubgroupLtMask, read one word at a time (`gl_SubgroupLtMask[word]`,
// `gl_SubgroupEqMask.x`). Each lane counts itself when its rank equals
// subgroupBallotExclusiveBitCount's, so the totals do not depend on the
// subgroup's size.
// run: --groups 2 --buffer Flags=u32:128:iota --buffer Counts=u32:4
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Flags { uint flags[]; };
layout(set = 0, binding = 1) buffer Counts { uint agree; uint kept; uint own_bit; uint first_word; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    bool keep = ((flags[i] * 2654435761u) >> 28) % 3u != 0u;
    uvec4 votes = subgroupBallot(keep);
    uint word = gl_SubgroupInvocationID / 32u;
    uint rank = 0u;
    for (uint w = 0u; w < word; ++w) {
        rank += bitCount(votes[w]);
    }
    rank += bitCount(votes[word] & gl_SubgroupLtMask[word]);
    if (rank == subgroupBallotExclusiveBitCount(votes)) {
        atomicAdd(agree, 1u);
    }
    if (keep) {
        atomicAdd(kept, 1u);
    }
    uint own = gl_SubgroupEqMask[word];
    if (bitCount(own) == 1u && own >> (gl_SubgroupInvocationID % 32u) == 1u) {
        atomicAdd(own_bit, 1u);
    }
    if (word == 0u && gl_SubgroupEqMask.x != 0u && gl_SubgroupGeMask.x != 0u) {
        atomicAdd(first_word, 1u);
    }
}
