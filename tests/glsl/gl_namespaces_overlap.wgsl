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

    let _e15 = gl_GlobalInvocationID_1;
    p = _e15.xy;
    let _e18 = p[0u];
    let _e20 = params.width;
    let _e21 = (_e18 >= _e20);
    phi_39_ = _e21;
    if !(_e21) {
        let _e24 = p[1u];
        let _e26 = params.height;
        phi_39_ = (_e24 >= _e26);
    }
    let _e29 = phi_39_;
    if _e29 {
        return;
    }
    let _e31 = p[1u];
    let _e33 = params.width;
    let _e36 = p[0u];
    let _e40 = unnamed.values[((_e31 * _e33) + _e36)];
    let _e42 = params.bins;
    v = (_e40 % _e42);
    let _e44 = v;
    let _e46 = vec2<i32>(bitcast<i32>(_e44), 0i);
    let _e48 = bitcast<u32>(_e46.x);
    let _e50 = bitcast<u32>(_e46.y);
    let _e70 = atomicAdd((&histogramImage.texels[select((((histogramImage_samples * histogramImage_layers) * histogramImage_height) * histogramImage_width), ((((((0u * histogramImage_layers) + 0u) * histogramImage_height) + _e50) * histogramImage_width) + _e48), ((((_e48 < histogramImage_width) && (_e50 < histogramImage_height)) && (0u < histogramImage_layers)) && (0u < histogramImage_samples)))]), 1u);
    let _e72 = atomicAdd((&unnamed_1.touched), 1u);
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
