//! Prints what `recognize` reads from each name given on the command line.

fn main() {
    for name in std::env::args().skip(1) {
        println!("{name}\n  {:?}", recognize::recognize(&name));
    }
}
