struct Params {
    pixel_count: u32,
    min_luma: f32,
    max_luma: f32,
    pad: u32,
}

struct Pixels {
    rgba8_: array<u32>,
}

struct Histogram {
    total: atomic<u32>,
    darkest_bin: atomic<u32>,
    brightest_bin: atomic<u32>,
    groups_done: atomic<u32>,
    bins: array<atomic<u32>, 256>,
}

@group(0) @binding(0) 
var<uniform> params: Params;
var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_bins: array<atomic<u32>, 256>;
var<workgroup> s_count: atomic<u32>;
@group(0) @binding(1) 
var<storage> pixels: Pixels;
@group(0) @binding(2) 
var<storage, read_write> hist: Histogram;

fn bin_of(luma: ptr<function, f32>) -> u32 {
    var range: f32;
    var t: f32;

    let _e10 = params.max_luma;
    let _e12 = params.min_luma;
    range = max((_e10 - _e12), 0.000001f);
    let _e15 = (*luma);
    let _e17 = params.min_luma;
    let _e19 = range;
    t = clamp(((_e15 - _e17) / _e19), 0f, 1f);
    let _e22 = t;
    return min(u32((_e22 * 256f)), 255u);
}

fn luminance(packed: ptr<function, u32>) -> f32 {
    var c: vec4<f32>;

    let _e3 = (*packed);
    c = unpack4x8unorm(_e3);
    let _e5 = c;
    return dot(_e5.xyz, vec3<f32>(0.2126f, 0.7152f, 0.0722f));
}

fn main_1(gl_WorkGroupID_1: vec3<u32>) {
    var lid: u32;
    var base: u32;
    var k: u32;
    var idx: u32;
    var b: u32;
    var param: u32;
    var param_1: f32;
    var count: u32;
    var gl_WorkGroupID_2: vec3<u32>;

    gl_WorkGroupID_2 = gl_WorkGroupID_1;
    let _e20 = gl_LocalInvocationIndex_1;
    lid = _e20;
    let _e21 = lid;
    atomicStore((&s_bins[_e21]), 0u);
    let _e23 = lid;
    if (_e23 == 0u) {
        atomicStore((&s_count), 0u);
    }
    workgroupBarrier();
    let _e26 = gl_WorkGroupID_2[0u];
    let _e29 = lid;
    base = (((_e26 * 256u) * 4u) + _e29);
    k = 0u;
    loop {
        let _e31 = k;
        if (_e31 < 4u) {
            let _e33 = base;
            let _e34 = k;
            idx = (_e33 + (_e34 * 256u));
            let _e37 = idx;
            let _e39 = params.pixel_count;
            if (_e37 < _e39) {
                let _e41 = idx;
                let _e44 = pixels.rgba8_[_e41];
                param = _e44;
                let _e45 = luminance((&param));
                param_1 = _e45;
                let _e46 = bin_of((&param_1));
                b = _e46;
                let _e47 = b;
                let _e49 = atomicAdd((&s_bins[_e47]), 1u);
                let _e50 = atomicAdd((&s_count), 1u);
            }
            continue;
        } else {
            break;
        }
        continuing {
            let _e51 = k;
            k = (_e51 + bitcast<u32>(1i));
        }
    }
    workgroupBarrier();
    workgroupBarrier();
    let _e54 = lid;
    let _e56 = atomicLoad((&s_bins[_e54]));
    count = _e56;
    let _e57 = count;
    if (_e57 != 0u) {
        let _e59 = lid;
        let _e62 = count;
        let _e63 = atomicAdd((&hist.bins[_e59]), _e62);
        let _e65 = lid;
        let _e66 = atomicMin((&hist.darkest_bin), _e65);
        let _e68 = lid;
        let _e69 = atomicMax((&hist.brightest_bin), _e68);
    }
    let _e70 = lid;
    if (_e70 == 0u) {
        let _e73 = atomicLoad((&s_count));
        let _e74 = atomicAdd((&hist.total), _e73);
        let _e76 = atomicAdd((&hist.groups_done), 1u);
    }
    return;
}

@compute @workgroup_size(256, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(workgroup_id) gl_WorkGroupID: vec3<u32>) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1(gl_WorkGroupID);
}
