#version 450
// OpenGL keeps binding numbers per kind: buffer binding 0, uniform-buffer
// binding 0, image unit 0 and atomic-counter binding 0 are four resources.
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = 0) readonly buffer Source { uint values[]; };
layout(std140, binding = 0) uniform Params { uint width; uint height; uint bins; } params;
layout(binding = 0, r32ui) uniform uimage2D histogramImage;
layout(binding = 0, offset = 0) uniform atomic_uint touched;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= params.width || p.y >= params.height) return;
    uint v = values[p.y * params.width + p.x] % params.bins;
    imageAtomicAdd(histogramImage, ivec2(int(v), 0), 1u);
    atomicCounterIncrement(touched);
}
// run: --groups 2,2 --uniform width=13 --uniform height=11 --uniform bins=7 --image histogramImage=8x2:r32ui:fill=1 --counter touched=5
// run: --buffer Source=u32:[68417,54285,39770,47923,37961,22896,92424,92303,70803,86688,36474,14439,3530,32624,50354,97831,54993,33080,65746,41606,83954,89710,94931,52637,18027,72244,8151,18334,25764,19780,92480,69842,73255,89893,27526,43389,70774,16187,93793,83725,9067,40527,53696,10730,66491,62141,83909,78635,18560,89471,53565,66331,44090,2337,56725,48784,74934,6772,98570,96847,46483,6592,62552,49129,76031,676,53144,31319,15347,72983,28028,32580,69064,47147,7616,35022,8419,36108,25263,97979,79153,72816,69878,72545,16971,32790,86319,40318,45589,41796,22377,43525,12335,75355,75804,35727,43923,1279,6635,98732,45613,2518,61231,97602,35717,62103,82981,7072,95549,25990,40604,33826,9834,98067,93756,63557,2708,81403,73948,68845,89915,18139,52823,63555,95897,77351,51324,24023,25643,32953,19765,88645,14471,27838,6583,70382,39992,41354,41439,6480,21161,54918,12162]
