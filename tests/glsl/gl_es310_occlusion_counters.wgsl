struct gl_DefaultUniformBlock {
    u_boxCount: u32,
    u_pyramidSize: vec2<u32>,
}

struct Boxes {
    boxes: array<vec4<f32>>,
}

struct Depth {
    nearest: array<f32>,
}

struct Kept {
    kept: array<u32>,
}

struct gl_AtomicCounterBlock_0_ {
    keptCount: atomic<u32>,
    rejectedCount: atomic<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(4) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(0) 
var<storage> unnamed_1: Boxes;
@group(0) @binding(1) 
var<storage> unnamed_2: Depth;
@group(0) @binding(2) 
var<storage, read_write> unnamed_3: Kept;
@group(0) @binding(3) 
var<storage, read_write> unnamed_4: gl_AtomicCounterBlock_0_;

fn main_1() {
    var i: u32;
    var b: vec4<f32>;
    var texel: vec2<u32>;
    var occluder: f32;

    let _e14 = gl_GlobalInvocationID_1[0u];
    i = _e14;
    let _e15 = i;
    let _e17 = unnamed.u_boxCount;
    if (_e15 >= _e17) {
        return;
    }
    let _e19 = i;
    let _e22 = unnamed_1.boxes[_e19];
    b = _e22;
    let _e23 = b;
    let _e26 = unnamed.u_pyramidSize;
    texel = vec2<u32>((_e23.xy * vec2<f32>(_e26)));
    let _e30 = texel;
    let _e32 = unnamed.u_pyramidSize;
    texel = min(_e30, (_e32 - vec2(1u)));
    let _e37 = texel[1u];
    let _e40 = unnamed.u_pyramidSize[0u];
    let _e43 = texel[0u];
    let _e47 = unnamed_2.nearest[((_e37 * _e40) + _e43)];
    occluder = _e47;
    let _e49 = b[2u];
    let _e50 = occluder;
    if (_e49 <= _e50) {
        let _e53 = atomicAdd((&unnamed_4.keptCount), 1u);
        let _e54 = i;
        unnamed_3.kept[_e53] = _e54;
    } else {
        let _e58 = atomicAdd((&unnamed_4.rejectedCount), 1u);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
