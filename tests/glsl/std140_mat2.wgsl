struct Out {
    v: array<vec4<f32>>,
}

struct gl_DefaultUniformBlock {
    words: array<vec4<u32>, 2>,
}

struct Frame {
    words: array<vec4<u32>, 6>,
}

var<private> gl_LocalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> unnamed: Out;
@group(0) @binding(2) 
var<uniform> unnamed_1: gl_DefaultUniformBlock;
@group(0) @binding(1) 
var<uniform> unnamed_2: Frame;

fn main_1() {
    var i: u32;
    var p: vec2<f32>;
    var r: vec2<f32>;
    var s: vec2<f32>;

    let _e16 = gl_LocalInvocationID_1[0u];
    i = _e16;
    let _e17 = i;
    let _e20 = unnamed.v[_e17];
    p = _e20.xy;
    let _e24 = unnamed_1.words[0u];
    let _e42 = unnamed_1.words[0u];
    let _e61 = unnamed_1.words[1u];
    let _e79 = unnamed_1.words[1u];
    let _e99 = unnamed_2.words[0u];
    let _e117 = unnamed_2.words[0u];
    let _e136 = unnamed_2.words[1u];
    let _e154 = unnamed_2.words[1u];
    let _e172 = p;
    r = (mat2x2<f32>(vec2<f32>(bitcast<f32>(select(select(select(_e24[0u], _e24[1u], (1u == 0u)), _e24[2u], (2u == 0u)), _e24[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e42[0u], _e42[1u], (1u == 1u)), _e42[2u], (2u == 1u)), _e42[3u], (3u == 1u)))), vec2<f32>(bitcast<f32>(select(select(select(_e61[0u], _e61[1u], (1u == 0u)), _e61[2u], (2u == 0u)), _e61[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e79[0u], _e79[1u], (1u == 1u)), _e79[2u], (2u == 1u)), _e79[3u], (3u == 1u))))) * (mat2x2<f32>(vec2<f32>(bitcast<f32>(select(select(select(_e99[0u], _e99[1u], (1u == 0u)), _e99[2u], (2u == 0u)), _e99[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e117[0u], _e117[1u], (1u == 1u)), _e117[2u], (2u == 1u)), _e117[3u], (3u == 1u)))), vec2<f32>(bitcast<f32>(select(select(select(_e136[0u], _e136[1u], (1u == 0u)), _e136[2u], (2u == 0u)), _e136[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e154[0u], _e154[1u], (1u == 1u)), _e154[2u], (2u == 1u)), _e154[3u], (3u == 1u))))) * _e172));
    let _e177 = unnamed_2.words[2u];
    let _e195 = unnamed_2.words[2u];
    let _e214 = unnamed_2.words[3u];
    let _e232 = unnamed_2.words[3u];
    let _e251 = unnamed_2.words[4u];
    let _e269 = unnamed_2.words[4u];
    let _e287 = p;
    s = (mat3x2<f32>(vec2<f32>(bitcast<f32>(select(select(select(_e177[0u], _e177[1u], (1u == 0u)), _e177[2u], (2u == 0u)), _e177[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e195[0u], _e195[1u], (1u == 1u)), _e195[2u], (2u == 1u)), _e195[3u], (3u == 1u)))), vec2<f32>(bitcast<f32>(select(select(select(_e214[0u], _e214[1u], (1u == 0u)), _e214[2u], (2u == 0u)), _e214[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e232[0u], _e232[1u], (1u == 1u)), _e232[2u], (2u == 1u)), _e232[3u], (3u == 1u)))), vec2<f32>(bitcast<f32>(select(select(select(_e251[0u], _e251[1u], (1u == 0u)), _e251[2u], (2u == 0u)), _e251[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e269[0u], _e269[1u], (1u == 1u)), _e269[2u], (2u == 1u)), _e269[3u], (3u == 1u))))) * vec3<f32>(_e287.x, _e287.y, 1f));
    let _e292 = i;
    let _e293 = r;
    let _e296 = unnamed_2.words[5u];
    let _e314 = unnamed_2.words[5u];
    let _e332 = unnamed_2.words[5u];
    let _e350 = (_e293 + vec3<f32>(bitcast<f32>(select(select(select(_e296[0u], _e296[1u], (1u == 0u)), _e296[2u], (2u == 0u)), _e296[3u], (3u == 0u))), bitcast<f32>(select(select(select(_e314[0u], _e314[1u], (1u == 1u)), _e314[2u], (2u == 1u)), _e314[3u], (3u == 1u))), bitcast<f32>(select(select(select(_e332[0u], _e332[1u], (1u == 2u)), _e332[2u], (2u == 2u)), _e332[3u], (3u == 2u)))).xy);
    let _e351 = s;
    unnamed.v[_e292] = vec4<f32>(_e350.x, _e350.y, _e351.x, _e351.y);
    return;
}

@compute @workgroup_size(4, 1, 1) 
fn main(@builtin(local_invocation_id) gl_LocalInvocationID: vec3<u32>) {
    gl_LocalInvocationID_1 = gl_LocalInvocationID;
    main_1();
}
