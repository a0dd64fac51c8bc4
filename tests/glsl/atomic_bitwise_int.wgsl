struct Flags {
    words: array<atomic<i32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> flags: Flags;

fn main_1() {
    var i: u32;
    var word: u32;
    var bit: i32;
    var before: i32;

    let _e13 = gl_GlobalInvocationID_1[0u];
    i = _e13;
    let _e14 = i;
    word = (_e14 / 32u);
    let _e16 = i;
    bit = bitcast<i32>((1u << bitcast<u32>((_e16 % 32u))));
    let _e21 = word;
    let _e24 = bit;
    let _e25 = atomicOr((&flags.words[_e21]), _e24);
    before = _e25;
    let _e26 = before;
    let _e27 = bit;
    if ((_e26 & _e27) != 0i) {
        let _e30 = word;
        let _e34 = bit;
        let _e35 = atomicXor((&flags.words[(_e30 + 8u)]), _e34);
    }
    let _e36 = word;
    let _e40 = bit;
    let _e42 = atomicAnd((&flags.words[(_e36 + 16u)]), ~(_e40));
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
