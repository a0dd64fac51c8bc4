struct Params {
    width: u32,
    height: u32,
    bins: u32,
}

struct Source {
    values: array<u32>,
}

struct gl_AtomicCounterBlock_0_ {
    touched: atomic<u32>,
}

struct histogramImage_texels {
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
    texels: array<atomic<u32>>,
}

@id(1000) override histogramImage_width: u32 = 1u;
@id(1001) override histogramImage_height: u32 = 1u;
@id(1002) override histogramImage_layers: u32 = 1u;
@id(1003) override histogramImage_samples: u32 = 1u;

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<uniform> params: Params;
@group(0) @binding(0) 
var<storage> unnamed: Source;
@group(0) @binding(2) 
var<storage, read_write> unnamed_1: gl_AtomicCounterBlock_0_;
@group(0) @binding(3) 
var<storage, read_write> histogramImage: histogramImage_texels;

fn main_1() {
    var p: vec2<u32>;
    var v: u32;
    var phi_39_: bool;

    let _e14 = gl_GlobalInvocationID_1;
    p = _e14.xy;
    let _e17 = p[0u];
    let _e19 = params.width;
    let _e20 = (_e17 >= _e19);
    phi_39_ = _e20;
    if !(_e20) {
        let _e23 = p[1u];
        let _e25 = params.height;
        phi_39_ = (_e23 >= _e25);
    }
    let _e28 = phi_39_;
    if _e28 {
        return;
    }
    let _e30 = p[1u];
    let _e32 = params.width;
    let _e35 = p[0u];
    let _e39 = unnamed.values[((_e30 * _e32) + _e35)];
    let _e41 = params.bins;
    v = (_e39 % _e41);
    let _e43 = v;
    let _e45 = vec2<i32>(bitcast<i32>(_e43), 0i);
    let _e47 = bitcast<u32>(_e45.x);
    let _e49 = bitcast<u32>(_e45.y);
    let _e69 = atomicAdd((&histogramImage.texels[select((((histogramImage_samples * histogramImage_layers) * histogramImage_height) * histogramImage_width), ((((((0u * histogramImage_layers) + 0u) * histogramImage_height) + _e49) * histogramImage_width) + _e47), ((((_e47 < histogramImage_width) && (_e49 < histogramImage_height)) && (0u < histogramImage_layers)) && (0u < histogramImage_samples)))]), 1u);
    let _e71 = atomicAdd((&unnamed_1.touched), 1u);
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
