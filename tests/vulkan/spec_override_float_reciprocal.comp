#version 450
// Sample counts and falloffs that the host sets by specialization, in the
// style of ambient-occlusion and blur kernels, with defaults of 0 that the
// shader guards at run time. The constants stay WGSL overrides (no
// spec-constant operation, no specialized workgroup size): `1.0 /
// float(SAMPLES)` and `1.0 / FALLOFF` would be evaluated when the pipeline
// is created, and an infinity there is an error.
layout(local_size_x = 8) in;
layout(constant_id = 0) const uint SAMPLES = 0;
layout(constant_id = 1) const int BIAS = 0;
layout(constant_id = 2) const float FALLOFF = 0.0;
layout(set = 0, binding = 0) buffer Values { float v[]; } values;

void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = values.v[i];
    float n = float(SAMPLES);
    float weight = n > 0.0 ? 1.0 / float(SAMPLES) : 1.0;
    float bias = float(BIAS) != 0.0 ? x / float(BIAS) : x;
    float falloff = FALLOFF > 0.0 ? max(1.0 - abs(x) / FALLOFF, 0.0) : 0.5;
    values.v[i] = weight * bias + falloff;
}

// run: --groups 1 --spec FALLOFF=4 --buffer Values=f32:[1,2,3,4,-5,6.5,0.25,8]
