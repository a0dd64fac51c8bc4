#version 430
// A scene-graph step as OpenGL CAD viewers write it: matrices kept in
// buffer textures, four texels a matrix, read through helpers that take
// the texture as an argument, one helper called with two textures and one
// passing its texture on; results written through a helper that takes the
// image buffer it stores to; a count kept with image atomics in main.
layout(local_size_x = 16) in;
layout(binding = 0) uniform samplerBuffer objectMatrices;
layout(binding = 1) uniform samplerBuffer parentMatrices;
layout(binding = 2) uniform isamplerBuffer parents;
layout(binding = 0, rgba32f) uniform writeonly imageBuffer worldRows;
layout(binding = 1, r32ui) uniform uimageBuffer visits;

mat4 matrixAt(samplerBuffer m, int idx)
{
  return mat4(texelFetch(m, idx * 4 + 0),
              texelFetch(m, idx * 4 + 1),
              texelFetch(m, idx * 4 + 2),
              texelFetch(m, idx * 4 + 3));
}

mat4 parentOf(samplerBuffer m, isamplerBuffer links, int idx)
{
  int p = texelFetch(links, idx).x % (textureSize(m) / 4);
  return matrixAt(m, p);
}

void storeRows(writeonly imageBuffer rows, int idx, mat4 w)
{
  for (int r = 0; r < 4; r++) {
    imageStore(rows, idx * 4 + r, w[r]);
  }
}

void main()
{
  int i = int(gl_GlobalInvocationID.x);
  if (i >= textureSize(objectMatrices) / 4) return;
  mat4 local = matrixAt(objectMatrices, i);
  local[3].xyz += vec3(float(i), float(i % 3), 0.5);
  mat4 world = parentOf(parentMatrices, parents, i) * local;
  storeRows(worldRows, i, world);
  imageAtomicAdd(visits, texelFetch(parents, i).x % imageSize(visits), 1u);
}
// run: --groups 2 --image objectMatrices=128:fill=1 --image parentMatrices=64:fill=0.5 --image parents=32:fill=3 --image worldRows=128 --image visits=8
