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

    let _e16 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e16.xy);
    let _e19 = p;
    let _e21 = unnamed.u_size;
    if any((_e19 >= _e21)) {
        return;
    }
    let _e25 = p[1u];
    let _e28 = unnamed.u_size[0u];
    let _e31 = p[0u];
    let _e35 = unnamed_1.luma[((_e25 * _e28) + _e31)];
    v = clamp(_e35, 0f, 1f);
    let _e37 = v;
    let _e39 = unnamed.u_bins;
    let _e44 = unnamed.u_bins;
    bin = min(i32((_e37 * f32(_e39))), (bitcast<i32>(_e44) - 1i));
    let _e48 = bin;
    let _e49 = bitcast<u32>(_e48);
    let _e69 = atomicAdd((&bins.texels[select((((bins_samples * bins_layers) * bins_height) * bins_width), ((((((0u * bins_layers) + 0u) * bins_height) + 0u) * bins_width) + _e49), ((((_e49 < bins_width) && (0u < bins_height)) && (0u < bins_layers)) && (0u < bins_samples)))]), 1u);
    return;
}

@compute @workgroup_size(16, 16, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
