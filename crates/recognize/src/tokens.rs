//! A name cut into words: each token keeps where it stands, the separator before it and the
//! bracket group it sits in, so rules can tell `Show - 05` from `Show.05` and `[Group]` from text.

/// One word of a name.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    /// Byte offsets into the segment.
    pub start: usize,
    pub end: usize,
    /// Lowercase text.
    pub lower: String,
    /// The separators between the previous token and this one (empty at the start).
    pub sep: String,
    /// The bracket group the token is in (0: none); each opening bracket starts a new one.
    pub group: u16,
}

impl Token {
    pub fn is_digits(&self) -> bool {
        !self.lower.is_empty() && self.lower.bytes().all(|b| b.is_ascii_digit())
    }

    pub fn number(&self) -> Option<u32> {
        if self.is_digits() && self.lower.len() <= 6 {
            self.lower.parse().ok()
        } else {
            None
        }
    }

    /// A dash stands in the separator before it.
    pub fn dash_before(&self) -> bool {
        self.sep.contains('-')
    }

    /// A dash between spaces or other separators (` - `, `.-.`, `_-_`): a part boundary.
    pub fn part_break(&self) -> bool {
        self.sep.contains('-') && self.sep.chars().count() > 1
    }
}

fn is_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '.'
            | '_'
            | '-'
            | '['
            | ']'
            | '('
            | ')'
            | '{'
            | '}'
            | '+'
            | ','
            | '~'
            | '|'
            | '*'
            | '/'
            | '\\'
            | '#'
            | '“'
            | '”'
            | '"'
            | '：'
            | ':'
            | ';'
            | '【'
            | '】'
            | '「'
            | '」'
            | '&'
            | '?'
            | '!'
    )
}

fn is_open(c: char) -> bool {
    matches!(c, '[' | '(' | '{' | '【' | '「')
}

fn is_close(c: char) -> bool {
    matches!(c, ']' | ')' | '}' | '】' | '」')
}

/// Cuts `text` into tokens.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut group: u16 = 0;
    let mut next_group: u16 = 0;
    let mut depth = 0u8;
    let mut sep = String::new();
    let mut start: Option<usize> = None;
    let mut group_at_start = 0;
    for (i, c) in text.char_indices() {
        if is_separator(c) {
            if let Some(s) = start.take() {
                push(&mut out, text, s, i, &mut sep, group_at_start);
            }
            if is_open(c) {
                depth = depth.saturating_add(1);
                next_group += 1;
                group = next_group;
            } else if is_close(c) {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    group = 0;
                }
            }
            sep.push(c);
        } else if start.is_none() {
            start = Some(i);
            group_at_start = group;
        }
    }
    if let Some(s) = start {
        push(&mut out, text, s, text.len(), &mut sep, group_at_start);
    }
    out
}

fn push(out: &mut Vec<Token>, text: &str, start: usize, end: usize, sep: &mut String, group: u16) {
    out.push(Token {
        start,
        end,
        lower: text[start..end].to_lowercase(),
        sep: std::mem::take(sep),
        group,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_separators_and_groups() {
        let t = tokenize("[Grp] Show.Name - 05 (720p)");
        let words: Vec<(&str, &str, u16)> = t
            .iter()
            .map(|t| (t.lower.as_str(), t.sep.as_str(), t.group))
            .collect();
        assert_eq!(
            words,
            vec![
                ("grp", "[", 1),
                ("show", "] ", 0),
                ("name", ".", 0),
                ("05", " - ", 0),
                ("720p", " (", 2)
            ]
        );
    }
}
