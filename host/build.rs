// The extension tree is embedded in the binary (served by the sink, loaded into
// throwaway profiles, packed for the stores), so edits to it must trigger a rebuild.
fn main() {
    println!("cargo:rerun-if-changed=../extension");
}
