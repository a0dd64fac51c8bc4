#version 450
// A clustered-lighting binning pass in the style of engines that give each
// update rate its own descriptor set: frame constants, the view, the light
// list, the cluster grid, per-object data and a debug set. Six sets: WebGPU
// has four bind groups, so the last two merge into others; natively they
// stay where the shader put them.
// run: --groups 2 --buffer Frame=u32:[3,0,0,0] --buffer Lights=u32:64:iota --buffer Grid=u32:[4,8]
// run: --buffer Objects=u32:[5,9,2,7] --buffer ViewData=u32:[16,2] --buffer Bins=u32:33
layout(local_size_x = 32) in;

layout(set = 0, binding = 0) uniform Frame { uint frameIndex; } frame;
layout(set = 1, binding = 0) readonly buffer ViewData { uint tileSize; uint shift; } view;
layout(set = 2, binding = 0) readonly buffer Lights { uint lightPositions[]; };
layout(set = 3, binding = 0) readonly buffer Grid { uint columns; uint rows; } grid;
layout(set = 4, binding = 0) readonly buffer Objects { uint objectMasks[4]; };
layout(set = 6, binding = 0) buffer Bins { uint overflow; uint binCounts[32]; };

void main() {
    uint light = gl_GlobalInvocationID.x;
    uint p = lightPositions[light] * 2654435761u >> view.shift;
    uint column = (p / view.tileSize) % grid.columns;
    uint row = ((p >> 8u) + frame.frameIndex) % grid.rows;
    uint bin = row * grid.columns + column;
    if ((objectMasks[light & 3u] >> (bin & 3u) & 1u) != 0u) {
        atomicAdd(binCounts[bin], 1u);
    } else {
        atomicAdd(overflow, 1u);
    }
}
