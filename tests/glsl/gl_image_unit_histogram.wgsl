struct gl_DefaultUniformBlock {
    u_bins: u32,
    u_size: vec2<i32>,
}

struct Luma {
    luma: array<f32>,
}

struct bins_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

@id(1000) override bins_width: u32 = 1u;
@id(1001) override bins_height: u32 = 1u;
@id(1002) override bins_layers: u32 = 1u;
@id(1003) override bins_samples: u32 = 1u;

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(2) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(0) 
var<storage> unnamed_1: Luma;
@group(0) @binding(1) 
var<storage, read_write> bins: bins_texels;

fn main_1() {
    var p: vec2<i32>;
    var v: f32;
    var bin: i32;

    let _e17 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e17.xy);
    let _e20 = p;
    let _e22 = unnamed.u_size;
    if any((_e20 >= _e22)) {
        return;
    }
    let _e26 = p[1u];
    let _e29 = unnamed.u_size[0u];
    let _e32 = p[0u];
    let _e36 = unnamed_1.luma[((_e26 * _e29) + _e32)];
    v = clamp(_e36, 0f, 1f);
    let _e38 = v;
    let _e40 = unnamed.u_bins;
    let _e45 = unnamed.u_bins;
    bin = min(i32((_e38 * f32(_e40))), (bitcast<i32>(_e45) - 1i));
    let _e49 = bin;
    let _e50 = bitcast<u32>(_e49);
    let _e70 = atomicAdd((&bins.texels[select((((bins_samples * bins_layers) * bins_height) * bins_width), ((((((0u * bins_layers) + 0u) * bins_height) + 0u) * bins_width) + _e50), ((((_e50 < bins_width) && (0u < bins_height)) && (0u < bins_layers)) && (0u < bins_samples)))]), 1u);
    return;
}

@compute @workgroup_size(16, 16, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
