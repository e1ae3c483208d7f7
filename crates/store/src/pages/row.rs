//! A row of a page read as the sequence of its columns: a row type's fields are the query's
//! result columns, in order, as the pool's JSON arrays (`json_array(...)`) hand them over too.
//! Each value is read where SQLite holds it (text as `&str`), so a `String` field costs one copy
//! and no column is matched by name.

use std::fmt;

use rusqlite::{Row, types::ValueRef};
use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};

/// Reads `row` as `T`, a struct whose fields are the row's columns in order.
pub(crate) fn read<T: de::DeserializeOwned>(row: &Row<'_>) -> Result<T, RowError> {
    T::deserialize(Columns { row, next: 0 })
}

/// A row that does not read as its type: a column of another type (or text that is not UTF-8),
/// a number too large for its field, or fewer or more columns than the type has fields.
#[derive(Debug)]
pub(crate) struct RowError(String);

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RowError {}

impl de::Error for RowError {
    fn custom<M: fmt::Display>(msg: M) -> RowError {
        RowError(msg.to_string())
    }
}

/// The row's columns from `next` on.
struct Columns<'a, 'r> {
    row: &'a Row<'r>,
    next: usize,
}

impl<'de> Deserializer<'de> for Columns<'_, '_> {
    type Error = RowError;

    /// Every column is read: a row type with fewer fields than the query has columns is as
    /// wrong as one with more.
    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, RowError> {
        let value = visitor.visit_seq(&mut self)?;
        let columns = self.row.as_ref().column_count();
        if self.next != columns {
            return Err(RowError(format!(
                "{columns} columns, read as {} fields",
                self.next
            )));
        }
        Ok(value)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for Columns<'_, '_> {
    type Error = RowError;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, RowError> {
        let at = self.next;
        let value = self
            .row
            .get_ref(at)
            .map_err(|e| RowError(format!("column {at}: {e}")))?;
        self.next += 1;
        seed.deserialize(Column(value))
            .map(Some)
            .map_err(|e| RowError(format!("column {at}: {e}")))
    }
}

/// One column's value, as SQLite holds it.
struct Column<'a>(ValueRef<'a>);

impl<'de> Deserializer<'de> for Column<'_> {
    type Error = RowError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RowError> {
        match self.0 {
            ValueRef::Null => visitor.visit_unit(),
            ValueRef::Integer(v) => visitor.visit_i64(v),
            ValueRef::Real(v) => visitor.visit_f64(v),
            ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => visitor.visit_str(text),
                Err(e) => Err(RowError(format!("text that is not UTF-8: {e}"))),
            },
            ValueRef::Blob(bytes) => visitor.visit_bytes(bytes),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RowError> {
        match self.0 {
            ValueRef::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}
