/// Columns a listing's statement selects after a row's own, each named by how far before the end it stands, so
/// that they are read by name whatever the row's own columns are.
protocol TrailingColumn: RawRepresentable where RawValue == Int32 {}
