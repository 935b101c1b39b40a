//! Rules that look at more than one attribute or field at a time, one file
//! per family of rules and one function per rule. Each rule reports to the
//! [`Ctxt`] and goes on, so that every broken rule shows up in the same
//! build; [`check`] runs them all, in the order their errors are listed.

use crate::ast::Input;
use crate::ctxt::Ctxt;

mod bounds;
mod bucket;
mod copy;
mod encrypt;
mod id;
mod index_kinds;
mod indexes;
mod keys;
mod links;
mod names;
mod on_delete;
mod pre_images;
mod report;
mod shape;
mod shard;
mod stamps;
mod storage;
#[cfg(test)]
mod testing;
mod timeseries;
mod versions;

/// Runs every rule on the parsed input.
pub fn check(cx: &Ctxt, input: &Input) {
    indexes::indexes_are_on_documents(cx, input);
    storage::field_is_stored_one_way(cx, input);
    shape::document_is_a_struct_with_named_fields(cx, input);
    shape::document_has_a_collection(cx, input);
    id::document_has_an_id(cx, input);
    id::id_is_one_value(cx, input);
    id::ids_are_stored_as_their_type(cx, input);
    shape::document_is_not_generic(cx, input);
    shape::flatten_is_not_supported(cx, input);
    shape::document_is_not_transparent(cx, input);
    shape::stored_form_is_the_type(cx, input);
    bounds::arrays_and_maps_are_bounded(cx, input);
    bounds::types_are_not_recursive(cx, input);
    bounds::embed_is_on_an_array_or_map(cx, input);
    bounds::embed_max_is_stored_as_is(cx, input);
    links::many_to_many_is_on_an_array(cx, input);
    links::many_to_many_is_never_null(cx, input);
    links::reference_holds_one_id(cx, input);
    bounds::max_fits_in_a_document(cx, input);
    links::links_are_on_documents(cx, input);
    storage::attributes_are_on_stored_fields(cx, input);
    links::reference_sort_is_a_field(cx, input);
    indexes::index_keys_are_fields(cx, input);
    indexes::ttl_index_has_one_key(cx, input);
    indexes::indexes_are_distinct(cx, input);
    indexes::id_is_not_indexed_again(cx, input);
    names::stored_names_are_distinct(cx, input);
    names::stored_names_are_plain_keys(cx, input);
    shape::open_has_an_object(cx, input);
    stamps::stamps_are_on_documents(cx, input);
    stamps::stamp_fields_are_declared(cx, input);
    bucket::check(cx, input);
    timeseries::check(cx, input);
    index_kinds::check(cx, input);
    shard::check(cx, input);
    on_delete::check(cx, input);
    copy::check(cx, input);
    versions::check(cx, input);
    pre_images::check(cx, input);
    encrypt::check(cx, input);
}
