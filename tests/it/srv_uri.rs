//! `mongodb+srv://` URIs (Atlas) reach the DNS lookup.
//!
//! `schema-core` turns the driver's `dns-resolver` feature on by default.
//! Without it, the driver rejects every SRV URI before any lookup with "cannot
//! be used when the 'dns-resolver' feature is disabled". The host below is in
//! the reserved `.invalid` top-level domain (RFC 6761), so the lookup of
//! `_mongodb._tcp.cluster0.example.invalid` goes to the system's configured
//! resolver only and cannot succeed: the error must be a DNS resolution error,
//! whether the resolver answers NXDOMAIN or is unreachable (timeout).

use std::time::{Duration, Instant};

use mongodb::error::ErrorKind;
use mongodb::options::ClientOptions;

#[tokio::test]
async fn an_srv_uri_gets_as_far_as_the_dns_lookup() {
    let uri = "mongodb+srv://cluster0.example.invalid/?connectTimeoutMS=2000";
    let started = Instant::now();
    // The driver's resolver gives up after its own timeouts (5 s, 2 attempts);
    // this bound only keeps a hung lookup from hanging the suite.
    let parsed = tokio::time::timeout(Duration::from_secs(30), ClientOptions::parse(uri))
        .await
        .expect("the SRV lookup did not finish within 30 s");
    let error = parsed.expect_err("an `.invalid` host cannot resolve");
    let message = error.to_string();
    assert!(
        !message.contains("feature is disabled"),
        "the driver was built without `dns-resolver`: {message}"
    );
    assert!(
        matches!(*error.kind, ErrorKind::DnsResolve { .. }),
        "expected a DNS resolution error, got: {error:?}"
    );
    eprintln!(
        "SRV lookup failed as expected after {:?}: {message}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_plain_uri_does_not_need_dns() {
    // The non-SRV form parses without any lookup, so a deployment that
    // cannot use DNS can still name its hosts directly.
    let options = ClientOptions::parse("mongodb://127.0.0.1:1/?directConnection=true")
        .await
        .expect("a plain URI parses offline");
    assert_eq!(options.hosts.len(), 1);
}
