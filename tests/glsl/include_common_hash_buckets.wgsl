struct Keys {
    keys: array<u32>,
}

struct Buckets {
    counts: array<atomic<u32>, 32>,
    first_key: array<atomic<u32>, 32>,
}

@group(0) @binding(0) 
var<storage> keys: Keys;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> buckets: Buckets;

fn hash_u32_(x: ptr<function, u32>) -> u32 {
    let _e5 = (*x);
    let _e8 = (*x);
    (*x) = (_e8 ^ (_e5 >> bitcast<u32>(16i)));
    let _e10 = (*x);
    (*x) = (_e10 * 2146121005u);
    let _e12 = (*x);
    let _e15 = (*x);
    (*x) = (_e15 ^ (_e12 >> bitcast<u32>(15i)));
    let _e17 = (*x);
    (*x) = (_e17 * 2221713035u);
    let _e19 = (*x);
    let _e22 = (*x);
    (*x) = (_e22 ^ (_e19 >> bitcast<u32>(16i)));
    let _e24 = (*x);
    return _e24;
}

fn bucket_of(key: ptr<function, u32>, bucket_count: ptr<function, u32>) -> u32 {
    var param: u32;

    let _e3 = (*key);
    param = _e3;
    let _e4 = hash_u32_((&param));
    let _e5 = (*bucket_count);
    return (_e4 % _e5);
}

fn main_1() {
    var key_1: u32;
    var b: u32;
    var param_1: u32;
    var param_2: u32;

    let _e12 = gl_GlobalInvocationID_1[0u];
    let _e15 = keys.keys[_e12];
    key_1 = _e15;
    let _e16 = key_1;
    if (_e16 == 4294967295u) {
        return;
    }
    let _e18 = key_1;
    param_1 = _e18;
    param_2 = 32u;
    let _e19 = bucket_of((&param_1), (&param_2));
    b = _e19;
    let _e20 = b;
    let _e23 = atomicAdd((&buckets.counts[_e20]), 1u);
    let _e24 = b;
    let _e27 = key_1;
    let _e28 = atomicMin((&buckets.first_key[_e24]), _e27);
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
