//! Request headers that must appear at most once. With two Host or two Origin headers
//! the sink would check one while a proxy, a log or a later reader may act on the
//! other; such a request is refused (400) rather than guessed at.

use hyper::header::{HeaderMap, HeaderName, HeaderValue};

/// A header that came more than once.
#[derive(Debug, PartialEq, Eq)]
pub struct Repeated(pub HeaderName);

/// The header's only value, if it came at all.
pub fn at_most_one<'a>(
    headers: &'a HeaderMap,
    name: &HeaderName,
) -> Result<Option<&'a HeaderValue>, Repeated> {
    let mut values = headers.get_all(name).iter();
    match (values.next(), values.next()) {
        (_, Some(_)) => Err(Repeated(name.clone())),
        (one, None) => Ok(one),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HOST;

    #[test]
    fn a_second_value_is_refused_and_none_is_fine() {
        let mut h = HeaderMap::new();
        assert_eq!(at_most_one(&h, &HOST), Ok(None));
        h.append(HOST, HeaderValue::from_static("a"));
        assert_eq!(
            at_most_one(&h, &HOST),
            Ok(Some(&HeaderValue::from_static("a")))
        );
        h.append(HOST, HeaderValue::from_static("a"));
        assert_eq!(at_most_one(&h, &HOST), Err(Repeated(HOST)));
    }
}
