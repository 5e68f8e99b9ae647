"""arena_gen/suite"""
