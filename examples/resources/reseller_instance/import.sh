# An instance is imported by its numeric id (see the reseller_instances data source).
terraform import reseller_instance.web 123
