#version 430
// Stream compaction with an atomic counter; the last word of a second
// counter binding counts the workgroups that finished, and the last
// workgroup writes the dispatch-indirect arguments.
layout(local_size_x = 64) in;

uniform uint u_n;
uniform uint u_threshold;

layout(std430, binding = 0) readonly buffer Input { uint values[]; };
layout(std430, binding = 1) writeonly buffer Output { uint kept[]; };
layout(std430, binding = 2) buffer Indirect { uint groupsX, groupsY, groupsZ; };
layout(binding = 0, offset = 0) uniform atomic_uint keptCount;
layout(binding = 1, offset = 0) uniform atomic_uint groupsDone;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < u_n && values[i] >= u_threshold) {
        kept[atomicCounterIncrement(keptCount)] = values[i];
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint done = atomicCounterIncrement(groupsDone);
        if (done == gl_NumWorkGroups.x - 1u) {
            groupsX = (atomicCounter(keptCount) + 63u) / 64u;
            groupsY = 1u;
            groupsZ = 1u;
        }
    }
}
// run: --groups 5 --uniform u_n=300 --uniform u_threshold=400 --buffer Output=u32:300:fill=4294967295 --buffer Indirect=u32:[9,9,9]
// run: --buffer Input=u32:[693,44,803,916,532,123,523,204,402,355,541,296,598,151,609,267,110,266,421,335,991,274,854,110,791,333,918,318,23,582,632,206,900,72,942,207,116,555,466,397,886,751,75,822,100,424,17,101,592,745,433,773,873,405,450,674,306,584,936,514,853,162,810,652,976,416,238,793,558,590,748,110,820,212,399,196,141,137,641,505,107,560,722,469,7,979,465,927,491,608,122,532,491,844,512,505,377,438,917,554,886,187,911,2,250,93,26,477,385,462,116,692,722,668,269,957,131,487,290,460,413,300,753,175,472,449,308,315,693,783,46,79,214,318,703,988,770,430,103,474,68,479,517,462,672,979,16,179,447,664,281,77,87,129,175,440,292,904,478,851,114,207,635,480,899,700,830,69,439,664,968,649,156,8,899,393,635,668,296,972,652,951,40,583,558,602,365,981,259,215,270,521,325,63,25,793,287,669,876,215,65,201,300,536,477,769,514,139,331,823,525,822,267,575,905,733,742,755,978,313,656,763,697,541,292,661,516,582,439,845,489,958,63,892,870,229,158,40,469,873,952,118,525,605,889,103,266,734,478,712,388,702,332,337,378,191,455,880,861,339,994,737,96,651,683,675,541,460,423,632,41,892,370,95,324,447,375,468,607,748,375,46,302,268,280,90,1000,231,401,32,996,174,169,481,679,732,567,109,726,610,526,93,894,37,601,446,47,733,698,143,627,332,251,554,748,558,855,34,283,195]
// compare: Output=multiset: kept values are appended at the slot atomicCounterIncrement(keptCount) returned, in whatever order the invocations ran
