struct Cells {
    seeds: array<u32, 8>,
    hashes: array<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> cells: Cells;

fn select_(a: ptr<function, u32>, b: ptr<function, u32>, first: ptr<function, bool>) -> u32 {
    let _e3 = (*first);
    let _e4 = (*a);
    let _e5 = (*b);
    return select(_e5, _e4, _e3);
}

fn hash(x: ptr<function, u32>) -> u32 {
    let _e4 = (*x);
    let _e7 = (*x);
    (*x) = (_e7 ^ (_e4 >> bitcast<u32>(16u)));
    let _e9 = (*x);
    (*x) = (_e9 * 2146121005u);
    let _e11 = (*x);
    let _e14 = (*x);
    (*x) = (_e14 ^ (_e11 >> bitcast<u32>(15u)));
    let _e16 = (*x);
    return _e16;
}

fn loop_(x_1: ptr<function, u32>, n: ptr<function, u32>) -> u32 {
    var k: u32;
    var param: u32;

    k = 0u;
    loop {
        let _e6 = k;
        let _e7 = (*n);
        if (_e6 < _e7) {
            let _e9 = (*x_1);
            param = _e9;
            let _e10 = hash((&param));
            (*x_1) = _e10;
            continue;
        } else {
            break;
        }
        continuing {
            let _e11 = k;
            k = (_e11 + bitcast<u32>(1i));
        }
    }
    let _e14 = (*x_1);
    return _e14;
}

fn hash_1(v: ptr<function, vec2<u32>>) -> u32 {
    var param_1: u32;
    var param_2: u32;

    let _e6 = (*v)[0u];
    let _e8 = (*v)[1u];
    param_1 = _e8;
    let _e9 = hash((&param_1));
    param_2 = (_e6 ^ _e9);
    let _e11 = hash((&param_2));
    return _e11;
}

fn hash_2(v_1: ptr<function, vec3<u32>>) -> u32 {
    var param_3: vec2<u32>;
    var param_4: vec2<u32>;

    let _e5 = (*v_1)[0u];
    let _e6 = (*v_1);
    param_3 = _e6.yz;
    let _e8 = hash_1((&param_3));
    param_4 = vec2<u32>(_e5, _e8);
    let _e10 = hash_1((&param_4));
    return _e10;
}

fn main_1() {
    var i: u32;
    var s: u32;
    var param_5: vec3<u32>;
    var param_6: u32;
    var param_7: u32;
    var param_8: u32;
    var param_9: u32;
    var param_10: bool;

    let _e15 = gl_GlobalInvocationID_1[0u];
    i = _e15;
    let _e16 = i;
    let _e19 = cells.seeds[_e16];
    s = _e19;
    let _e20 = i;
    let _e21 = s;
    let _e22 = i;
    param_5 = vec3<u32>(_e21, _e22, 7u);
    let _e24 = hash_2((&param_5));
    let _e25 = i;
    let _e27 = s;
    param_6 = _e27;
    param_7 = (_e25 & 3u);
    let _e28 = loop_((&param_6), (&param_7));
    let _e29 = s;
    param_8 = _e24;
    param_9 = _e28;
    param_10 = ((_e29 & 1u) == 0u);
    let _e32 = select_((&param_8), (&param_9), (&param_10));
    cells.hashes[_e20] = _e32;
    return;
}

@compute @workgroup_size(8, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
