struct Data {
    v: array<vec4<u32>, 8>,
}

@group(0) @binding(0) 
var<storage, read_write> unnamed: Data;

fn main_1() {
    var i: u32;
    var frags: array<vec4<u32>, 8>;
    var n: u32;
    var i_1: u32;
    var f: vec4<u32>;
    var j: u32;
    var i_2: u32;
    var phi_92_: bool;
    var phi_93_: bool;
    var phi_94_: bool;

    i = 0u;
    loop {
        let _e13 = i;
        if (_e13 < 8u) {
            let _e15 = i;
            let _e16 = i;
            let _e19 = unnamed.v[_e16];
            frags[_e15] = _e19;
            continue;
        } else {
            break;
        }
        continuing {
            let _e21 = i;
            i = (_e21 + bitcast<u32>(1i));
        }
    }
    n = 8u;
    i_1 = 1u;
    loop {
        let _e24 = i_1;
        let _e25 = n;
        if (_e24 < _e25) {
            let _e27 = i_1;
            let _e29 = frags[_e27];
            f = _e29;
            let _e30 = i_1;
            j = _e30;
            loop {
                let _e31 = j;
                let _e32 = (_e31 > 0u);
                phi_94_ = _e32;
                if _e32 {
                    let _e33 = j;
                    let _e37 = frags[(_e33 - 1u)][1u];
                    let _e39 = f[1u];
                    let _e40 = (_e37 < _e39);
                    phi_93_ = _e40;
                    if !(_e40) {
                        let _e42 = j;
                        let _e46 = frags[(_e42 - 1u)][1u];
                        let _e48 = f[1u];
                        let _e49 = (_e46 == _e48);
                        phi_92_ = _e49;
                        if _e49 {
                            let _e50 = j;
                            let _e54 = frags[(_e50 - 1u)][3u];
                            let _e56 = f[3u];
                            phi_92_ = (_e54 < _e56);
                        }
                        let _e59 = phi_92_;
                        phi_93_ = _e59;
                    }
                    let _e61 = phi_93_;
                    phi_94_ = _e61;
                }
                let _e63 = phi_94_;
                if _e63 {
                    let _e64 = j;
                    let _e65 = j;
                    let _e68 = frags[(_e65 - 1u)];
                    frags[_e64] = _e68;
                    let _e70 = j;
                    j = (_e70 - bitcast<u32>(1i));
                    continue;
                } else {
                    break;
                }
            }
            let _e73 = j;
            let _e74 = f;
            frags[_e73] = _e74;
            continue;
        } else {
            break;
        }
        continuing {
            let _e76 = i_1;
            i_1 = (_e76 + bitcast<u32>(1i));
        }
    }
    i_2 = 0u;
    loop {
        let _e79 = i_2;
        if (_e79 < 8u) {
            let _e81 = i_2;
            let _e82 = i_2;
            let _e84 = frags[_e82];
            unnamed.v[_e81] = _e84;
            continue;
        } else {
            break;
        }
        continuing {
            let _e87 = i_2;
            i_2 = (_e87 + bitcast<u32>(1i));
        }
    }
    return;
}

@compute @workgroup_size(1, 1, 1) 
fn main() {
    main_1();
}
