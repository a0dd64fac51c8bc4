struct Echo {
    echo: array<u32>,
}

struct gl_DefaultUniformBlock {
    u_u: u32,
    u_i: i32,
    u_f: f32,
    u_b: u32,
    u_u2_: vec2<u32>,
    u_i3_: vec3<i32>,
    u_f4_: vec4<f32>,
    u_b2_: vec2<u32>,
    u_f2_: vec2<f32>,
    u_u4_: vec4<u32>,
    u_i2_: vec2<i32>,
    u_f3_: vec3<f32>,
}

@group(0) @binding(0) 
var<storage, read_write> unnamed: Echo;
@group(0) @binding(1) 
var<uniform> unnamed_1: gl_DefaultUniformBlock;

fn main_1() {
    let _e33 = unnamed_1.u_u;
    unnamed.echo[0i] = _e33;
    let _e37 = unnamed_1.u_i;
    unnamed.echo[1i] = bitcast<u32>(_e37);
    let _e42 = unnamed_1.u_f;
    unnamed.echo[2i] = bitcast<u32>(_e42);
    let _e47 = unnamed_1.u_b;
    unnamed.echo[3i] = select(0u, 1u, (_e47 != 0u));
    let _e54 = unnamed_1.u_u2_[0u];
    unnamed.echo[4i] = _e54;
    let _e59 = unnamed_1.u_u2_[1u];
    unnamed.echo[5i] = _e59;
    let _e64 = unnamed_1.u_i3_[0u];
    unnamed.echo[6i] = bitcast<u32>(_e64);
    let _e70 = unnamed_1.u_i3_[1u];
    unnamed.echo[7i] = bitcast<u32>(_e70);
    let _e76 = unnamed_1.u_i3_[2u];
    unnamed.echo[8i] = bitcast<u32>(_e76);
    let _e82 = unnamed_1.u_f4_[0u];
    unnamed.echo[9i] = bitcast<u32>(_e82);
    let _e88 = unnamed_1.u_f4_[1u];
    unnamed.echo[10i] = bitcast<u32>(_e88);
    let _e94 = unnamed_1.u_f4_[2u];
    unnamed.echo[11i] = bitcast<u32>(_e94);
    let _e100 = unnamed_1.u_f4_[3u];
    unnamed.echo[12i] = bitcast<u32>(_e100);
    let _e106 = unnamed_1.u_b2_[0u];
    unnamed.echo[13i] = select(0u, 1u, (_e106 != 0u));
    let _e113 = unnamed_1.u_b2_[1u];
    unnamed.echo[14i] = select(0u, 1u, (_e113 != 0u));
    let _e120 = unnamed_1.u_f2_[0u];
    unnamed.echo[15i] = bitcast<u32>(_e120);
    let _e126 = unnamed_1.u_f2_[1u];
    unnamed.echo[16i] = bitcast<u32>(_e126);
    let _e132 = unnamed_1.u_u4_[0u];
    unnamed.echo[17i] = _e132;
    let _e137 = unnamed_1.u_u4_[1u];
    unnamed.echo[18i] = _e137;
    let _e142 = unnamed_1.u_u4_[2u];
    unnamed.echo[19i] = _e142;
    let _e147 = unnamed_1.u_u4_[3u];
    unnamed.echo[20i] = _e147;
    let _e152 = unnamed_1.u_i2_[0u];
    unnamed.echo[21i] = bitcast<u32>(_e152);
    let _e158 = unnamed_1.u_i2_[1u];
    unnamed.echo[22i] = bitcast<u32>(_e158);
    let _e164 = unnamed_1.u_f3_[0u];
    unnamed.echo[23i] = bitcast<u32>(_e164);
    let _e170 = unnamed_1.u_f3_[1u];
    unnamed.echo[24i] = bitcast<u32>(_e170);
    let _e176 = unnamed_1.u_f3_[2u];
    unnamed.echo[25i] = bitcast<u32>(_e176);
    return;
}

@compute @workgroup_size(1, 1, 1) 
fn main() {
    main_1();
}
