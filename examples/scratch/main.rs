fn main() {
    let path = std::env::args().nth(1).unwrap();
    match atomport::Kernel::from_path(std::path::Path::new(&path), None, &Default::default()) {
        Ok(k) => {
            println!("{}", k.wgsl());
            eprintln!("{:?}", k.bindings());
        }
        Err(e) => eprintln!("{e}"),
    }
}
