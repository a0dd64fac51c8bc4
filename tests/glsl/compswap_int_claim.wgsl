struct Keys {
    keys: array<i32>,
}

struct Table {
    slots: array<atomic<i32>>,
}

@group(0) @binding(0) 
var<storage> keys: Keys;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> table: Table;

fn main_1() {
    var key: i32;
    var h: u32;
    var probe: u32;
    var s: u32;
    var prev: i32;
    var atomic_compare_old: i32;

    let _e14 = gl_GlobalInvocationID_1[0u];
    let _e17 = keys.keys[_e14];
    key = _e17;
    let _e18 = key;
    h = ((bitcast<u32>(_e18) * 2654435761u) % 1024u);
    probe = 0u;
    loop {
        let _e22 = probe;
        if (_e22 < 1024u) {
            let _e24 = h;
            let _e25 = probe;
            s = ((_e24 + _e25) % 1024u);
            let _e28 = s;
            let _e31 = key;
            loop {
                let _e43 = atomicCompareExchangeWeak((&table.slots[_e28]), -1i, _e31);
                atomic_compare_old = _e43.old_value;
                if (_e43.exchanged || (_e43.old_value != -1i)) {
                    break;
                }
            }
            let _e33 = atomic_compare_old;
            prev = _e33;
            let _e34 = prev;
            let _e36 = prev;
            let _e37 = key;
            if ((_e34 == -1i) || (_e36 == _e37)) {
                break;
            }
            continue;
        } else {
            break;
        }
        continuing {
            let _e40 = probe;
            probe = (_e40 + bitcast<u32>(1i));
        }
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
